//! Validating an accepted form answer against its [`RequestedSchema`].
//!
//! [`validate_content`] checks the `content` of an `accept` and returns the
//! content to send upstream: the answer with defaults filled in for fields the
//! user left out (the conformance scenario `elicitation-sep1034-client-defaults`
//! checks exactly that). It reports every problem at once, one
//! [`FieldError`] per offending field.
//!
//! Rules:
//!
//! - `content` must be a JSON object; an absent `content` or a JSON `null` is
//!   treated as `{}`. Anything else yields a single error with an empty
//!   `field` (the answer as a whole).
//! - Keys that are not properties of the schema: "is not in the form".
//! - Missing fields get their default when the schema has one; a missing
//!   required field without default: "is required". `required` means
//!   "present" as in JSON Schema: an empty string satisfies it (unless
//!   `minLength` says otherwise). A present `null` is a type error, not an
//!   omission.
//! - Text: a string; `minLength`/`maxLength` count Unicode scalar values;
//!   formats are checked by small hand-written checks: `email` (one `@`, a
//!   plausible local part, a dotted domain of letter/digit/hyphen labels,
//!   non-ASCII letters allowed), `uri` (RFC 3986 absolute URI: a scheme, a
//!   colon, something after it, no whitespace or control characters, valid
//!   percent escapes; non-ASCII characters allowed as browsers send them),
//!   `date` (`YYYY-MM-DD`, a real calendar date), `date-time` (RFC 3339 with
//!   `T` and a mandatory offset, `Z` or `±HH:MM`; seconds required, fraction
//!   optional).
//! - Number: a JSON number, integral for `type: "integer"` (`3.0` counts and is
//!   sent as `3`), within `minimum`/`maximum` (inclusive).
//! - Boolean: `true` or `false`.
//! - Single select: a string equal to one option value.
//! - Multi select: an array of strings, each an option value, no value twice,
//!   a count within `minItems`/`maxItems`.
//!
//! Errors come in schema field order, followed by unknown keys.

use std::collections::HashSet;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use super::schema::{EnumOption, FieldKind, RequestedSchema, TextFormat, number_value};

/// One problem with an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    /// The property name; empty when the answer as a whole is wrong.
    pub field: String,
    /// What is wrong, phrased to follow the field's name or title
    /// ("is required", "must be at most 3 characters").
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for FieldError {}

/// Validates the `content` of an accepted form elicitation and returns the
/// content to send upstream (defaults filled in), or every problem found.
pub fn validate_content(
    schema: &RequestedSchema,
    content: Option<&Value>,
) -> Result<Map<String, Value>, Vec<FieldError>> {
    let empty = Map::new();
    let given = match content {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(o)) => o,
        Some(_) => {
            return Err(vec![FieldError {
                field: String::new(),
                message: "the answer must be a JSON object".to_owned(),
            }]);
        }
    };

    let mut out = Map::new();
    let mut errors = Vec::new();
    for field in &schema.fields {
        match given.get(&field.name) {
            Some(v) => match check_value(&field.kind, v) {
                Ok(v) => {
                    out.insert(field.name.clone(), v);
                }
                Err(message) => errors.push(FieldError { field: field.name.clone(), message }),
            },
            None => {
                if let Some(d) = field.kind.default_value() {
                    out.insert(field.name.clone(), d);
                } else if field.required {
                    errors.push(FieldError { field: field.name.clone(), message: "is required".to_owned() });
                }
            }
        }
    }
    for key in given.keys() {
        if schema.field(key).is_none() {
            errors.push(FieldError { field: key.clone(), message: "is not in the form".to_owned() });
        }
    }

    if errors.is_empty() { Ok(out) } else { Err(errors) }
}

/// Checks one answer value against a field and returns it normalized
/// (integral numbers as JSON integers). Also used for schema defaults.
pub(crate) fn check_value(kind: &FieldKind, v: &Value) -> Result<Value, String> {
    match kind {
        FieldKind::Text { min_length, max_length, format, .. } => {
            let s = v
                .as_str()
                .ok_or_else(|| format!("must be a string, found {}", super::schema::describe(v)))?;
            let n = s.chars().count() as u64;
            if let Some(min) = *min_length
                && n < min
            {
                return Err(format!("must be at least {min} {}", plural(min, "character")));
            }
            if let Some(max) = *max_length
                && n > max
            {
                return Err(format!("must be at most {max} {}", plural(max, "character")));
            }
            if let Some(f) = format {
                let (ok, what) = match f {
                    TextFormat::Email => (is_email(s), "an email address"),
                    TextFormat::Uri => (is_uri(s), "an absolute URI (such as https://example.com/)"),
                    TextFormat::Date => (is_date(s), "a date as YYYY-MM-DD"),
                    TextFormat::DateTime => {
                        (is_date_time(s), "a date and time as RFC 3339 (such as 2025-06-18T09:30:00Z)")
                    }
                };
                if !ok {
                    return Err(format!("must be {what}"));
                }
            }
            Ok(v.clone())
        }
        FieldKind::Number { integer, minimum, maximum, .. } => {
            let Value::Number(n) = v else {
                let expected = if *integer { "an integer" } else { "a number" };
                return Err(format!("must be {expected}, found {}", super::schema::describe(v)));
            };
            let x = n.as_f64().unwrap_or(f64::NAN);
            if *integer && !(n.is_i64() || n.is_u64() || x.fract() == 0.0) {
                return Err(format!("must be an integer, found {n}"));
            }
            if let Some(min) = *minimum
                && x < min
            {
                return Err(format!("must be at least {min}"));
            }
            if let Some(max) = *maximum
                && x > max
            {
                return Err(format!("must be at most {max}"));
            }
            if n.is_i64() || n.is_u64() { Ok(v.clone()) } else { Ok(number_value(x)) }
        }
        FieldKind::Boolean { .. } => match v {
            Value::Bool(_) => Ok(v.clone()),
            other => Err(format!("must be true or false, found {}", super::schema::describe(other))),
        },
        FieldKind::SingleSelect { options, .. } => {
            let s = v
                .as_str()
                .ok_or_else(|| format!("must be a string, found {}", super::schema::describe(v)))?;
            if is_option(options, s) {
                Ok(v.clone())
            } else {
                Err(format!("{} is not one of the options", quote(s)))
            }
        }
        FieldKind::MultiSelect { options, min_items, max_items, .. } => {
            let items = v.as_array().ok_or_else(|| {
                format!("must be an array of strings, found {}", super::schema::describe(v))
            })?;
            let mut seen = HashSet::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let s = item.as_str().ok_or_else(|| {
                    format!("must be an array of strings, but item {i} is {}", super::schema::describe(item))
                })?;
                if !is_option(options, s) {
                    return Err(format!("{} is not one of the options", quote(s)));
                }
                if !seen.insert(s) {
                    return Err(format!("{} is selected more than once", quote(s)));
                }
            }
            let n = items.len() as u64;
            if let Some(min) = *min_items
                && n < min
            {
                return Err(format!("must select at least {min} {}", plural(min, "option")));
            }
            if let Some(max) = *max_items
                && n > max
            {
                return Err(format!("must select at most {max} {}", plural(max, "option")));
            }
            Ok(v.clone())
        }
    }
}

fn is_option(options: &[EnumOption], s: &str) -> bool {
    options.iter().any(|o| o.value == s)
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 { word.to_owned() } else { format!("{word}s") }
}

/// A debug-quoted value, cut short so a huge answer does not make a huge message.
fn quote(s: &str) -> String {
    const MAX: usize = 64;
    if s.chars().count() <= MAX {
        format!("{s:?}")
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head:?}…")
    }
}

// ---- formats ---------------------------------------------------------------

/// A pragmatic email check: `local@domain`, one `@`, no whitespace, a domain of
/// at least two dot-separated labels of letters, digits and hyphens.
pub(crate) fn is_email(s: &str) -> bool {
    if s.len() > 254 {
        return false;
    }
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    if local.is_empty() || local.len() > 64 || domain.contains('@') {
        return false;
    }
    let local_ok =
        local.chars().all(|c| !c.is_whitespace() && !c.is_control() && !"\"(),:;<>[\\]".contains(c))
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..");
    if !local_ok {
        return false;
    }
    let labels: Vec<&str> = domain.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
}

/// An absolute URI per RFC 3986 (scheme ":" rest), leniently allowing
/// non-ASCII characters in the rest.
pub(crate) fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut sc = scheme.chars();
    let scheme_ok = sc.next().is_some_and(|c| c.is_ascii_alphabetic())
        && sc.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok || rest.is_empty() {
        return false;
    }
    if rest.chars().any(|c| c.is_whitespace() || c.is_control() || "<>\"{}|\\^`".contains(c)) {
        return false;
    }
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    true
}

fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => 29,
        2 => 28,
        _ => 0,
    }
}

/// `YYYY-MM-DD`, a real calendar date (proleptic Gregorian).
pub(crate) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(&s[0..4]), digits(&s[5..7]), digits(&s[8..10])) else {
        return false;
    };
    (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)
}

/// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`.
pub(crate) fn is_date_time(s: &str) -> bool {
    if !s.is_ascii() || s.len() < 20 {
        return false;
    }
    let (date, rest) = s.split_at(10);
    if !is_date(date) {
        return false;
    }
    let Some(rest) = rest.strip_prefix(['T', 't']) else {
        return false;
    };
    let b = rest.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(h), Some(mi), Some(sec)) = (digits(&rest[0..2]), digits(&rest[3..5]), digits(&rest[6..8]))
    else {
        return false;
    };
    if h > 23 || mi > 59 || sec > 60 {
        return false;
    }
    let mut tail = &rest[8..];
    if let Some(frac) = tail.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        tail = &frac[n..];
    }
    match tail {
        "Z" | "z" => true,
        _ => {
            let tb = tail.as_bytes();
            tb.len() == 6
                && (tb[0] == b'+' || tb[0] == b'-')
                && tb[3] == b':'
                && digits(&tail[1..3]).is_some_and(|oh| oh <= 23)
                && digits(&tail[4..6]).is_some_and(|om| om <= 59)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elicitation::schema::parse_requested_schema;
    use serde_json::json;

    fn schema(v: Value) -> RequestedSchema {
        parse_requested_schema(&v).expect("valid schema")
    }

    fn one(prop: Value) -> RequestedSchema {
        schema(json!({"type": "object", "properties": {"f": prop}, "required": ["f"]}))
    }

    #[track_caller]
    fn ok(s: &RequestedSchema, content: Value) -> Map<String, Value> {
        validate_content(s, Some(&content)).expect("valid content")
    }

    #[track_caller]
    fn err(s: &RequestedSchema, content: Value) -> Vec<FieldError> {
        validate_content(s, Some(&content)).expect_err("invalid content")
    }

    #[track_caller]
    fn err_msg(prop: Value, value: Value, part: &str) {
        let errors = err(&one(prop), json!({ "f": value }));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].field, "f");
        assert!(errors[0].message.contains(part), "{:?} does not contain {part:?}", errors[0].message);
    }

    #[test]
    fn content_must_be_an_object() {
        let s = one(json!({"type": "string"}));
        let e = err(&s, json!(["x"]));
        assert_eq!(
            e,
            vec![FieldError { field: String::new(), message: "the answer must be a JSON object".into() }]
        );
        assert_eq!(e[0].to_string(), "the answer must be a JSON object");
        err(&s, json!("x"));
    }

    #[test]
    fn absent_or_null_content_is_empty() {
        let s = schema(json!({"type": "object", "properties": {
            "a": {"type": "string", "default": "x"}, "b": {"type": "boolean"}}}));
        assert_eq!(validate_content(&s, None).unwrap(), ok(&s, json!({"a": "x"})));
        assert_eq!(Value::Object(validate_content(&s, Some(&Value::Null)).unwrap()), json!({"a": "x"}));
        let r = one(json!({"type": "string"}));
        assert_eq!(
            validate_content(&r, None).unwrap_err(),
            vec![FieldError { field: "f".into(), message: "is required".into() }]
        );
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let s = one(json!({"type": "string"}));
        let e = err(&s, json!({"f": "x", "extra": 1}));
        assert_eq!(e, vec![FieldError { field: "extra".into(), message: "is not in the form".into() }]);
        assert_eq!(e[0].to_string(), "extra: is not in the form");
    }

    #[test]
    fn defaults_fill_only_missing_fields() {
        let s = schema(json!({"type": "object", "properties": {
            "t": {"type": "string", "default": "d"},
            "n": {"type": "integer", "default": 7},
            "b": {"type": "boolean", "default": false},
            "e": {"type": "string", "enum": ["x", "y"], "default": "y"},
            "m": {"type": "array", "items": {"type": "string", "enum": ["p", "q"]}, "default": ["q"]},
            "none": {"type": "string"}
        }, "required": ["t", "n"]}));
        assert_eq!(
            Value::Object(ok(&s, json!({}))),
            json!({"t": "d", "n": 7, "b": false, "e": "y", "m": ["q"]})
        );
        assert_eq!(
            Value::Object(ok(&s, json!({"t": "", "b": true, "m": [], "none": "z"}))),
            json!({"t": "", "n": 7, "b": true, "e": "y", "m": [], "none": "z"})
        );
    }

    #[test]
    fn required_means_present() {
        let s = one(json!({"type": "string"}));
        assert_eq!(ok(&s, json!({"f": ""}))["f"], "");
        let e = err(&s, json!({}));
        assert_eq!(e[0].message, "is required");
        // null is not an omission.
        err_msg(json!({"type": "string"}), Value::Null, "must be a string, found null");
    }

    #[test]
    fn text_lengths_count_scalar_values() {
        let p = json!({"type": "string", "minLength": 2, "maxLength": 3});
        let s = one(p.clone());
        ok(&s, json!({"f": "ab"}));
        ok(&s, json!({"f": "äöü"})); // 6 bytes, 3 characters
        ok(&s, json!({"f": "😀😀"}));
        err_msg(p.clone(), json!("a"), "must be at least 2 characters");
        err_msg(p.clone(), json!("abcd"), "must be at most 3 characters");
        err_msg(json!({"type": "string", "maxLength": 1}), json!("ab"), "must be at most 1 character");
        err_msg(p, json!(12), "must be a string, found an integer");
    }

    #[test]
    fn email_format() {
        for good in ["a@b.co", "first.last+tag@sub.example.org", "user@xn--bcher-kva.de", "jürgen@bücher.de"]
        {
            assert!(is_email(good), "{good}");
        }
        for bad in [
            "",
            "plain",
            "@b.co",
            "a@",
            "a@b",
            "a@@b.co",
            "a@b@c.co",
            "a b@c.co",
            "a@b .co",
            ".a@b.co",
            "a.@b.co",
            "a..b@c.co",
            "a@-b.co",
            "a@b-.co",
            "a@b..co",
            "a@b_c.co",
            "<a>@b.co",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
        err_msg(json!({"type": "string", "format": "email"}), json!("nope"), "must be an email address");
    }

    #[test]
    fn uri_format() {
        for good in [
            "https://example.com",
            "https://example.com/a/b?c=d#e",
            "http://[::1]:8080/",
            "mailto:a@b.co",
            "urn:isbn:0451450523",
            "file:///etc/hosts",
            "https://example.com/%20x",
            "https://bücher.de/",
        ] {
            assert!(is_uri(good), "{good}");
        }
        for bad in [
            "",
            "example.com",
            "/relative/path",
            "https:",
            "1http://x",
            "ht tp://x",
            "https://exa mple.com",
            "https://example.com/\n",
            "https://example.com/<script>",
            "https://example.com/%zz",
            "https://example.com/%2",
            "https://example.com/%",
            ":nothing",
        ] {
            assert!(!is_uri(bad), "{bad}");
        }
        err_msg(json!({"type": "string", "format": "uri"}), json!("example.com"), "must be an absolute URI");
    }

    #[test]
    fn date_format() {
        for good in ["2025-06-18", "2024-02-29", "2000-02-29", "0001-01-01", "9999-12-31"] {
            assert!(is_date(good), "{good}");
        }
        for bad in [
            "2025-02-29",
            "1900-02-29",
            "2025-04-31",
            "2025-13-01",
            "2025-00-10",
            "2025-01-00",
            "2025-1-01",
            "25-01-01",
            "2025/01/01",
            "2025-01-01T00:00:00Z",
            "２０２５-01-01",
            "+025-01-01",
            "",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        err_msg(
            json!({"type": "string", "format": "date"}),
            json!("2025-02-30"),
            "must be a date as YYYY-MM-DD",
        );
    }

    #[test]
    fn date_time_format() {
        for good in [
            "2025-06-18T09:30:00Z",
            "2025-06-18t09:30:00z",
            "2025-06-18T09:30:00.123456Z",
            "2025-06-18T09:30:00+02:00",
            "2025-06-18T23:59:60-11:30",
            "2024-02-29T00:00:00Z",
        ] {
            assert!(is_date_time(good), "{good}");
        }
        for bad in [
            "2025-06-18",
            "2025-06-18T09:30Z",
            "2025-06-18T09:30:00",
            "2025-06-18 09:30:00Z",
            "2025-06-18T24:00:00Z",
            "2025-06-18T09:60:00Z",
            "2025-06-18T09:30:61Z",
            "2025-06-18T09:30:00.Z",
            "2025-06-18T09:30:00+0200",
            "2025-06-18T09:30:00+24:00",
            "2025-06-18T09:30:00+02:60",
            "2025-02-30T09:30:00Z",
            "2025-06-18T09:30:00ZZ",
            "2025-06-18T9:30:00Z",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
        err_msg(json!({"type": "string", "format": "date-time"}), json!("2025-06-18T09:30"), "RFC 3339");
    }

    #[test]
    fn numbers() {
        let p = json!({"type": "number", "minimum": 0, "maximum": 1000});
        let s = one(p.clone());
        assert_eq!(ok(&s, json!({"f": 2.75}))["f"], json!(2.75));
        assert_eq!(ok(&s, json!({"f": 0}))["f"], json!(0));
        assert_eq!(ok(&s, json!({"f": 1000}))["f"], json!(1000));
        err_msg(p.clone(), json!(-0.5), "must be at least 0");
        err_msg(p.clone(), json!(1000.01), "must be at most 1000");
        err_msg(p.clone(), json!("5"), "must be a number, found a string");
        err_msg(p, json!(true), "must be a number, found a boolean");
    }

    #[test]
    fn integers() {
        let p = json!({"type": "integer", "minimum": 1, "maximum": 100});
        let s = one(p.clone());
        assert_eq!(ok(&s, json!({"f": 42}))["f"], json!(42));
        // An integral float is accepted and sent as an integer.
        let out = ok(&s, json!({"f": 42.0}));
        assert!(out["f"].is_i64(), "{:?}", out["f"]);
        assert_eq!(serde_json::to_string(&out["f"]).unwrap(), "42");
        err_msg(p.clone(), json!(4.5), "must be an integer, found 4.5");
        err_msg(p.clone(), json!(0), "must be at least 1");
        err_msg(p.clone(), json!(101), "must be at most 100");
        err_msg(p, json!("4"), "must be an integer, found a string");
        // Big integers outside f64's exact range stay as sent.
        let big = one(json!({"type": "integer"}));
        assert_eq!(
            serde_json::to_string(&ok(&big, json!({"f": u64::MAX}))["f"]).unwrap(),
            u64::MAX.to_string()
        );
    }

    #[test]
    fn booleans() {
        let s = one(json!({"type": "boolean"}));
        assert_eq!(ok(&s, json!({"f": false}))["f"], json!(false));
        err_msg(json!({"type": "boolean"}), json!("true"), "must be true or false");
        err_msg(json!({"type": "boolean"}), json!(1), "must be true or false");
    }

    #[test]
    fn single_selects() {
        for p in [
            json!({"type": "string", "enum": ["a", "b"]}),
            json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}),
            json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}),
        ] {
            ok(&one(p.clone()), json!({"f": "b"}));
            err_msg(p.clone(), json!("B"), "\"B\" is not one of the options");
            err_msg(p.clone(), json!(["a"]), "must be a string, found an array");
        }
    }

    #[test]
    fn multi_selects() {
        for p in [
            json!({"type": "array", "minItems": 1, "maxItems": 2,
                   "items": {"type": "string", "enum": ["a", "b", "c"]}}),
            json!({"type": "array", "minItems": 1, "maxItems": 2,
                   "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"},
                                       {"const": "c", "title": "C"}]}}),
        ] {
            let s = one(p.clone());
            assert_eq!(ok(&s, json!({"f": ["c", "a"]}))["f"], json!(["c", "a"]));
            err_msg(p.clone(), json!([]), "must select at least 1 option");
            err_msg(p.clone(), json!(["a", "b", "c"]), "must select at most 2 options");
            err_msg(p.clone(), json!(["a", "a"]), "\"a\" is selected more than once");
            err_msg(p.clone(), json!(["a", "z"]), "\"z\" is not one of the options");
            err_msg(p.clone(), json!(["a", 1]), "item 1 is an integer");
            err_msg(p.clone(), json!("a"), "must be an array of strings, found a string");
        }
    }

    #[test]
    fn long_values_are_quoted_short() {
        let long = "x".repeat(1000);
        let errors = err(&one(json!({"type": "string", "enum": ["a"]})), json!({ "f": long }));
        assert!(errors[0].message.len() < 120, "{}", errors[0].message);
        assert!(errors[0].message.contains('…'));
    }

    #[test]
    fn all_errors_are_reported_in_field_order() {
        let s = schema(json!({"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "boolean"}
        }, "required": ["a", "b", "c"]}));
        let content = json!({"b": 1.5, "zz": 0, "yy": 1});
        let e = err(&s, content.clone());
        let fields: Vec<&str> = e.iter().map(|e| e.field.as_str()).collect();
        let mut expected: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
        expected.extend(content.as_object().unwrap().keys().map(String::as_str).filter(|k| k.len() == 2));
        assert_eq!(fields, expected);
        assert_eq!(e.len(), 5);
        let json = serde_json::to_value(&e[0]).unwrap();
        assert_eq!(json, json!({"field": "a", "message": "is required"}));
    }
}
