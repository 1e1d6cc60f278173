//! JSON helpers for a proxy that must change as little as possible: params
//! are split into top-level members whose values stay raw text, so arguments,
//! `requestState` and unknown fields travel exactly as they were sent.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// An ordered JSON object whose member values are raw JSON text.
#[derive(Debug, Default, Clone)]
pub struct RawObject(Vec<(String, Box<RawValue>)>);

impl RawObject {
    /// Splits `raw` (absent means `{}`); fails unless it is a JSON object
    /// without duplicate members.
    pub fn parse(raw: Option<&RawValue>) -> Result<Self, String> {
        match raw {
            None => Ok(Self::default()),
            Some(raw) => serde_json::from_str::<RawObject>(raw.get()).map_err(|e| format!("params: {e}")),
        }
    }

    pub fn get(&self, key: &str) -> Option<&RawValue> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_ref())
    }

    pub fn set(&mut self, key: &str, value: Box<RawValue>) {
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key.to_owned(), value)),
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<Box<RawValue>> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(at).1)
    }

    /// A string member (e.g. the tool name).
    pub fn string(&self, key: &str) -> Option<String> {
        self.get(key).and_then(|v| serde_json::from_str::<String>(v.get()).ok())
    }

    /// The `_meta` member, parsed (it is small, and Herald edits it).
    pub fn meta(&self) -> Map<String, Value> {
        self.get("_meta").and_then(|m| serde_json::from_str(m.get()).ok()).unwrap_or_default()
    }

    pub fn to_raw(&self) -> Box<RawValue> {
        let mut out = String::from("{");
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(k).expect("strings serialize"));
            out.push(':');
            out.push_str(v.get());
        }
        out.push('}');
        RawValue::from_string(out).expect("members of an object make an object")
    }
}

impl<'de> serde::Deserialize<'de> for RawObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = RawObject;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<RawObject, A::Error> {
                let mut members: Vec<(String, Box<RawValue>)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Box<RawValue>>()? {
                    if members.iter().any(|(existing, _)| *existing == k) {
                        return Err(serde::de::Error::custom(format!("duplicate member {k:?}")));
                    }
                    members.push((k, v));
                }
                Ok(RawObject(members))
            }
        }
        d.deserialize_map(Members)
    }
}

pub fn raw(value: &Value) -> Box<RawValue> {
    RawValue::from_string(value.to_string()).expect("a Value serializes to JSON")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_their_bytes_and_order() {
        let text =
            r#"{"name":"t","arguments":{"n":1.50,"big":12345678901234567890},"requestState":"a\u0041b"}"#;
        let raw_params = RawValue::from_string(text.to_owned()).unwrap();
        let mut params = RawObject::parse(Some(&raw_params)).unwrap();
        assert_eq!(params.get("requestState").unwrap().get(), r#""a\u0041b""#);
        params.set("_meta", raw(&serde_json::json!({"k": 1})));
        assert_eq!(
            params.to_raw().get(),
            r#"{"name":"t","arguments":{"n":1.50,"big":12345678901234567890},"requestState":"a\u0041b","_meta":{"k":1}}"#
        );
        assert_eq!(params.string("name").as_deref(), Some("t"));
        assert!(RawObject::parse(Some(&RawValue::from_string("[1]".into()).unwrap())).is_err());
        assert!(RawObject::parse(Some(&RawValue::from_string(r#"{"a":1,"a":2}"#.into()).unwrap())).is_err());
    }
}
