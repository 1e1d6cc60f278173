//! What the agent's own elicitation callback answers: the rule of tests/compat/harness/answers.py
//! (the schema's default where there is one, otherwise the first valid value of the field's kind).

use serde_json::{Map, Value, json};

pub const SAMPLING_REPLY: &str = "compat-sampled-reply";
pub const ROOT_URI: &str = "file:///compat/root";

fn sample_for(format: Option<&str>) -> &'static str {
    match format {
        Some("email") => "person@example.com",
        Some("uri") => "https://example.com/compat",
        Some("date") => "2026-12-01",
        Some("date-time") => "2026-12-01T10:00:00Z",
        _ => "compat",
    }
}

fn fill_field(field: &Value) -> Value {
    if let Some(default) = field.get("default") {
        return default.clone();
    }
    match field.get("type").and_then(Value::as_str) {
        Some("string") => {
            if let Some(first) = field.get("enum").and_then(|e| e.get(0)) {
                return first.clone();
            }
            if let Some(first) = field.get("oneOf").and_then(|e| e.get(0)) {
                return first["const"].clone();
            }
            let mut text = sample_for(field.get("format").and_then(Value::as_str)).to_owned();
            let min = field.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            while text.len() < min {
                text.push('x');
            }
            if let Some(max) = field.get("maxLength").and_then(Value::as_u64) {
                text.truncate(max as usize);
            }
            json!(text)
        }
        Some(kind @ ("number" | "integer")) => {
            let max = field.get("maximum").and_then(Value::as_f64).unwrap_or(1.0);
            let value =
                field.get("minimum").and_then(Value::as_f64).unwrap_or(if max < 1.0 { max } else { 1.0 });
            if kind == "integer" { json!(value as i64) } else { json!(value) }
        }
        Some("boolean") => json!(true),
        Some("array") => {
            let items = &field["items"];
            let options: Vec<Value> = match items.get("enum").and_then(Value::as_array) {
                Some(values) => values.clone(),
                None => items
                    .get("anyOf")
                    .and_then(Value::as_array)
                    .map(|choices| choices.iter().map(|c| c["const"].clone()).collect())
                    .unwrap_or_default(),
            };
            let count = field.get("minItems").and_then(Value::as_u64).unwrap_or(1).max(1) as usize;
            json!(options.into_iter().take(count).collect::<Vec<_>>())
        }
        _ => Value::Null,
    }
}

/// Content for an accepted form: every property answered.
pub fn fill(schema: &Value) -> Value {
    let content: Map<String, Value> = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, field)| (name.clone(), fill_field(field)))
        .collect();
    Value::Object(content)
}
