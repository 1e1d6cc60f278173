//! The `requestedSchema` of a form-mode elicitation, as a typed model.
//!
//! MCP restricts `requestedSchema` to a flat object whose properties are
//! primitives (see `mcp-notes.md`, "Elicitation"). [`parse_requested_schema`]
//! accepts exactly that subset and turns it into a [`RequestedSchema`]; every
//! rejection is a [`SchemaError`] naming the offending location (a dotted path
//! such as `properties.age.minimum`) and the reason.
//!
//! # Accepted shapes
//!
//! Top level: `{"type":"object","properties":{…},"required":[…]}` with
//! optional `$schema`, `title` and `description`. `required` is optional and
//! may name only existing properties. `additionalProperties: false` is also
//! accepted (pydantic emits it, and it means what Herald does anyway: answers
//! with unknown keys are rejected); any other value of it is rejected.
//!
//! Each property is exactly one of:
//!
//! | shape | keywords |
//! |---|---|
//! | text | `type:"string"`, `minLength`, `maxLength`, `format` ∈ `email`, `uri`, `date`, `date-time`, `default` |
//! | number | `type:"number"` or `"integer"`, `minimum`, `maximum`, `default` |
//! | boolean | `type:"boolean"`, `default` |
//! | single select, untitled | `type:"string"`, `enum`, `default` |
//! | single select, legacy titled | `type:"string"`, `enum`, `enumNames` (same length), `default` |
//! | single select, titled | `type:"string"`, `oneOf:[{"const","title"}]`, `default` |
//! | multi select, untitled | `type:"array"`, `items:{"type":"string","enum":[…]}`, `minItems`, `maxItems`, `default` |
//! | multi select, titled | `type:"array"`, `items:{"anyOf":[{"const","title"}]}` (an extra `"type":"string"` in `items` is accepted), `minItems`, `maxItems`, `default` |
//!
//! and every shape may carry `title` and `description` (strings).
//!
//! # Keywords outside the subset
//!
//! A keyword that is not listed for a shape is rejected, with a reason that
//! says why (`$ref`, composition, nested objects, arrays of objects, or simply
//! "unsupported keyword"). The exception is [`TOLERATED_KEYWORDS`]: `pattern`
//! (appears in a prose example of the specification but is not part of the
//! schema), `examples` and `$comment` (pure annotations). They are accepted
//! anywhere and dropped: they are not in the model and nothing relies on
//! them. Rejecting the rest keeps Herald honest: a keyword it ignored could
//! carry a constraint the server will enforce and the user was never shown.
//!
//! Defaults must have the field's type and must themselves be valid answers
//! for the field (among the options, within length/range/item limits, in the
//! declared format), because Herald fills them into accepted answers.
//!
//! # Limits
//!
//! Checked in this order: the compact serialization of the whole schema is at
//! most [`MAX_SCHEMA_BYTES`] (checked first, before anything else is looked
//! at), at most [`MAX_PROPERTIES`] properties, property names of
//! 1..=[`MAX_PROPERTY_NAME_CHARS`] characters, at most [`MAX_ENUM_OPTIONS`]
//! options per field.
//!
//! # Property order
//!
//! [`RequestedSchema::fields`] follows the iteration order of
//! `serde_json::Map`. This crate does not enable serde_json's
//! `preserve_order` feature, so that is the map's sorted key order, not
//! necessarily the order the server wrote; should the feature ever be
//! enabled anywhere in the build, it becomes the order as received. Nothing in
//! this crate depends on which.
//!
//! # Serialized shape
//!
//! The model serializes (for the dashboard) to a normalized shape in which
//! every key is always present (`null` when absent), keys are snake_case, and
//! the three wire spellings of a single select (and the two of a multi
//! select) collapse into one:
//!
//! ```json
//! {
//!   "title": null,
//!   "description": null,
//!   "fields": [
//!     {"name": "email", "title": "Email", "description": null, "required": true,
//!      "kind": "text", "min_length": null, "max_length": null, "format": "email", "default": null},
//!     {"name": "age", "title": null, "description": null, "required": false,
//!      "kind": "number", "integer": true, "minimum": 0.0, "maximum": 150.0, "default": null},
//!     {"name": "ok", "title": null, "description": null, "required": false,
//!      "kind": "boolean", "default": true},
//!     {"name": "pet", "title": null, "description": null, "required": false,
//!      "kind": "single_select", "options": [{"value": "cat", "title": "Cats"}], "default": null},
//!     {"name": "tags", "title": null, "description": null, "required": false,
//!      "kind": "multi_select", "options": [{"value": "a", "title": null}],
//!      "min_items": 1, "max_items": null, "default": ["a"]}
//!   ]
//! }
//! ```
//!
//! `format` is one of `"email"`, `"uri"`, `"date"`, `"date-time"` or `null`.

use std::collections::HashSet;
use std::fmt;
use std::io;

use serde::Serialize;
use serde_json::{Map, Value};

use super::content::check_value;

/// Largest accepted schema, in bytes of its compact JSON serialization.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;
/// Most properties a schema may have.
pub const MAX_PROPERTIES: usize = 100;
/// Longest property name, in Unicode scalar values (names must be non-empty).
pub const MAX_PROPERTY_NAME_CHARS: usize = 128;
/// Most options a single- or multi-select field may list.
pub const MAX_ENUM_OPTIONS: usize = 500;
/// Keywords accepted anywhere in the schema and ignored (kept out of the model).
pub const TOLERATED_KEYWORDS: &[&str] = &["pattern", "examples", "$comment"];

/// Why a `requestedSchema` (or elicitation params) was rejected.
///
/// `path` is a dotted location inside the schema (`properties.age.minimum`,
/// `properties.pet.enum[2]`); it is empty when the schema as a whole is at
/// fault. `Display` gives `"path: reason"`, or just the reason for an empty
/// path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaError {
    /// Where in the schema the problem is.
    pub path: String,
    /// What is wrong there.
    pub reason: String,
}

impl SchemaError {
    /// A new error at `path`.
    pub fn new(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { path: path.into(), reason: reason.into() }
    }

    /// The same error with `prefix` put in front of its path.
    pub fn prefixed(mut self, prefix: &str) -> Self {
        self.path = join(prefix, &self.path);
        self
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{}: {}", self.path, self.reason)
        }
    }
}

impl std::error::Error for SchemaError {}

/// A validated form-mode `requestedSchema`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestedSchema {
    /// Object-level `title`, if the server sent one.
    pub title: Option<String>,
    /// Object-level `description`, if the server sent one.
    pub description: Option<String>,
    /// The properties, in `serde_json::Map` order (see the module docs).
    pub fields: Vec<Field>,
}

impl RequestedSchema {
    /// The properties as `(name, field)` pairs, in the order of [`Self::fields`].
    pub fn properties(&self) -> impl Iterator<Item = (&str, &Field)> + '_ {
        self.fields.iter().map(|f| (f.name.as_str(), f))
    }

    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// One property of the form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The property name: the key of the answer.
    pub name: String,
    /// `title`, if any.
    pub title: Option<String>,
    /// `description`, if any.
    pub description: Option<String>,
    /// Whether `required` lists this property.
    pub required: bool,
    /// The shape and constraints.
    #[serde(flatten)]
    pub kind: FieldKind,
}

/// What kind of input a field is, with its constraints and default.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FieldKind {
    /// `type: "string"` without options.
    Text {
        /// `minLength`, in Unicode scalar values.
        min_length: Option<u64>,
        /// `maxLength`, in Unicode scalar values.
        max_length: Option<u64>,
        /// `format`.
        format: Option<TextFormat>,
        /// `default`.
        default: Option<String>,
    },
    /// `type: "number"` or `type: "integer"`.
    Number {
        /// `true` for `type: "integer"`.
        integer: bool,
        /// `minimum` (inclusive).
        minimum: Option<f64>,
        /// `maximum` (inclusive).
        maximum: Option<f64>,
        /// `default`.
        default: Option<f64>,
    },
    /// `type: "boolean"`.
    Boolean {
        /// `default`.
        default: Option<bool>,
    },
    /// One value out of a list: `enum`, `enum` + `enumNames`, or `oneOf`.
    SingleSelect {
        /// The options, in the order sent.
        options: Vec<EnumOption>,
        /// `default` (one of the option values).
        default: Option<String>,
    },
    /// Any number of values out of a list: `type: "array"` with enum items.
    MultiSelect {
        /// The options, in the order sent.
        options: Vec<EnumOption>,
        /// `minItems`.
        min_items: Option<u64>,
        /// `maxItems`.
        max_items: Option<u64>,
        /// `default` (distinct option values).
        default: Option<Vec<String>>,
    },
}

/// `format` of a text field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextFormat {
    /// `email`
    Email,
    /// `uri`
    Uri,
    /// `date` (`YYYY-MM-DD`)
    Date,
    /// `date-time` (RFC 3339)
    DateTime,
}

impl TextFormat {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TextFormat::Email => "email",
            TextFormat::Uri => "uri",
            TextFormat::Date => "date",
            TextFormat::DateTime => "date-time",
        }
    }
}

/// One option of a select field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnumOption {
    /// The value that goes into the answer.
    pub value: String,
    /// The label to show (`oneOf`/`anyOf` `title`, or the matching `enumNames`
    /// entry); `None` for untitled enums, which show the value itself.
    pub title: Option<String>,
}

impl FieldKind {
    /// The default as the JSON value to put into an answer, if there is one.
    pub fn default_value(&self) -> Option<Value> {
        match self {
            FieldKind::Text { default, .. } => default.clone().map(Value::String),
            FieldKind::Number { default, .. } => default.map(number_value),
            FieldKind::Boolean { default } => default.map(Value::Bool),
            FieldKind::SingleSelect { default, .. } => default.clone().map(Value::String),
            FieldKind::MultiSelect { default, .. } => {
                default.as_ref().map(|d| Value::Array(d.iter().cloned().map(Value::String).collect()))
            }
        }
    }
}

/// A JSON number for `x`: an integer when `x` is integral and exactly
/// representable, a float otherwise.
pub(crate) fn number_value(x: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if x.fract() == 0.0 && x.abs() <= EXACT {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// Parses and validates a form-mode `requestedSchema`.
pub fn parse_requested_schema(v: &Value) -> Result<RequestedSchema, SchemaError> {
    check_size(v)?;
    let obj = v.as_object().ok_or_else(|| SchemaError::new("", "the schema must be a JSON object"))?;

    for key in obj.keys() {
        match key.as_str() {
            "type" | "properties" | "required" | "$schema" | "title" | "description" => {}
            k if TOLERATED_KEYWORDS.contains(&k) => {}
            "additionalProperties" => {
                if obj[key] != Value::Bool(false) {
                    return Err(SchemaError::new(
                        key,
                        "only `false` is supported (answers with unknown keys are rejected anyway)",
                    ));
                }
            }
            k => return Err(unsupported_keyword("", k, "the top level of the schema")),
        }
    }

    match obj.get("type") {
        None => {
            return Err(SchemaError::new("type", "is required and must be \"object\""));
        }
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            return Err(SchemaError::new("type", format!("must be \"object\", found {}", describe(other))));
        }
    }
    if let Some(s) = obj.get("$schema")
        && !s.is_string()
    {
        return Err(SchemaError::new("$schema", "must be a string"));
    }
    let title = opt_string(obj, "", "title")?;
    let description = opt_string(obj, "", "description")?;

    let props = match obj.get("properties") {
        None => {
            return Err(SchemaError::new("properties", "is required (use {} for a form without fields)"));
        }
        Some(Value::Object(p)) => p,
        Some(other) => {
            return Err(SchemaError::new(
                "properties",
                format!("must be an object, found {}", describe(other)),
            ));
        }
    };
    if props.len() > MAX_PROPERTIES {
        return Err(SchemaError::new(
            "properties",
            format!("has {} properties; at most {MAX_PROPERTIES} are allowed", props.len()),
        ));
    }

    let required = parse_required(obj.get("required"), props)?;

    let mut fields = Vec::with_capacity(props.len());
    for (name, prop) in props {
        let path = format!("properties.{name}");
        let chars = name.chars().count();
        if chars == 0 {
            return Err(SchemaError::new("properties", "a property name must not be empty"));
        }
        if chars > MAX_PROPERTY_NAME_CHARS {
            return Err(SchemaError::new(
                path,
                format!(
                    "the property name has {chars} characters; at most {MAX_PROPERTY_NAME_CHARS} are allowed"
                ),
            ));
        }
        let p = prop.as_object().ok_or_else(|| {
            SchemaError::new(&path, format!("a property must be an object, found {}", describe(prop)))
        })?;
        let (title, description, kind) = parse_field(p, &path)?;
        fields.push(Field {
            name: name.clone(),
            title,
            description,
            required: required.contains(name.as_str()),
            kind,
        });
    }

    Ok(RequestedSchema { title, description, fields })
}

/// A writer that only counts, and fails once past the limit.
struct SizeLimit {
    written: usize,
}

impl io::Write for SizeLimit {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written += buf.len();
        if self.written > MAX_SCHEMA_BYTES {
            Err(io::Error::other("schema too large"))
        } else {
            Ok(buf.len())
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn check_size(v: &Value) -> Result<(), SchemaError> {
    let mut w = SizeLimit { written: 0 };
    if serde_json::to_writer(&mut w, v).is_err() {
        return Err(SchemaError::new("", format!("the schema is larger than {MAX_SCHEMA_BYTES} bytes")));
    }
    Ok(())
}

fn parse_required<'a>(
    v: Option<&'a Value>,
    props: &Map<String, Value>,
) -> Result<HashSet<&'a str>, SchemaError> {
    let mut set = HashSet::new();
    let Some(v) = v else {
        return Ok(set);
    };
    let items = v.as_array().ok_or_else(|| {
        SchemaError::new("required", format!("must be an array of property names, found {}", describe(v)))
    })?;
    for (i, item) in items.iter().enumerate() {
        let path = format!("required[{i}]");
        let name = item.as_str().ok_or_else(|| {
            SchemaError::new(&path, format!("must be a property name (string), found {}", describe(item)))
        })?;
        if !props.contains_key(name) {
            return Err(SchemaError::new(
                path,
                format!("names {name:?}, which is not a property of the schema"),
            ));
        }
        set.insert(name);
    }
    Ok(set)
}

type Parsed = (Option<String>, Option<String>, FieldKind);

fn parse_field(p: &Map<String, Value>, path: &str) -> Result<Parsed, SchemaError> {
    // Reasons for the common ways of leaving the subset come first, so they are
    // reported as such rather than as a missing or odd `type`.
    if p.contains_key("$ref") {
        return Err(SchemaError::new(
            join(path, "$ref"),
            "$ref is not supported: every property must be written out in place",
        ));
    }
    for k in ["allOf", "anyOf", "not", "if", "then", "else"] {
        if p.contains_key(k) {
            return Err(SchemaError::new(
                join(path, k),
                format!("composition ({k}) is not supported; only flat primitive properties are allowed"),
            ));
        }
    }

    let ty = match p.get("type") {
        None => {
            return Err(SchemaError::new(
                join(path, "type"),
                "is required (string, number, integer, boolean or array)",
            ));
        }
        Some(Value::String(t)) => t.as_str(),
        Some(other) => {
            return Err(SchemaError::new(
                join(path, "type"),
                format!("must be a single type name (string), found {}", describe(other)),
            ));
        }
    };
    if p.contains_key("oneOf") && ty != "string" {
        return Err(SchemaError::new(
            join(path, "oneOf"),
            "composition (oneOf) is only supported as the option list of a titled single select (type \"string\")",
        ));
    }

    let title = opt_string(p, path, "title")?;
    let description = opt_string(p, path, "description")?;
    let kind = match ty {
        "string" if p.contains_key("enum") || p.contains_key("oneOf") => parse_single_select(p, path)?,
        "string" if p.contains_key("enumNames") => {
            return Err(SchemaError::new(join(path, "enumNames"), "is only allowed together with enum"));
        }
        "string" => parse_text(p, path)?,
        "number" | "integer" => parse_number(p, path, ty == "integer")?,
        "boolean" => parse_boolean(p, path)?,
        "array" => parse_multi_select(p, path)?,
        "object" => {
            return Err(SchemaError::new(
                join(path, "type"),
                "nested objects are not supported; only flat primitive properties are allowed",
            ));
        }
        other => {
            return Err(SchemaError::new(
                join(path, "type"),
                format!("unsupported type {other:?} (expected string, number, integer, boolean or array)"),
            ));
        }
    };

    if let Some(default) = p.get("default")
        && let Err(msg) = check_value(&kind, default)
    {
        return Err(SchemaError::new(
            join(path, "default"),
            format!("is not a valid value for this field: {msg}"),
        ));
    }

    Ok((title, description, kind))
}

fn parse_text(p: &Map<String, Value>, path: &str) -> Result<FieldKind, SchemaError> {
    check_keys(
        p,
        path,
        &["type", "title", "description", "minLength", "maxLength", "format", "default"],
        "a text field",
    )?;
    let min_length = opt_length(p, path, "minLength")?;
    let max_length = opt_length(p, path, "maxLength")?;
    if let (Some(min), Some(max)) = (min_length, max_length)
        && min > max
    {
        return Err(SchemaError::new(
            join(path, "minLength"),
            format!("minLength ({min}) is greater than maxLength ({max})"),
        ));
    }
    let format = match p.get("format") {
        None => None,
        Some(Value::String(f)) => Some(match f.as_str() {
            "email" => TextFormat::Email,
            "uri" => TextFormat::Uri,
            "date" => TextFormat::Date,
            "date-time" => TextFormat::DateTime,
            other => {
                return Err(SchemaError::new(
                    join(path, "format"),
                    format!("unsupported format {other:?} (expected email, uri, date or date-time)"),
                ));
            }
        }),
        Some(other) => {
            return Err(SchemaError::new(
                join(path, "format"),
                format!("must be a string, found {}", describe(other)),
            ));
        }
    };
    let default = match p.get("default") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(wrong_default(path, "a string", other)),
    };
    Ok(FieldKind::Text { min_length, max_length, format, default })
}

fn parse_number(p: &Map<String, Value>, path: &str, integer: bool) -> Result<FieldKind, SchemaError> {
    check_keys(
        p,
        path,
        &["type", "title", "description", "minimum", "maximum", "default"],
        if integer { "an integer field" } else { "a number field" },
    )?;
    let minimum = opt_number(p, path, "minimum")?;
    let maximum = opt_number(p, path, "maximum")?;
    if let (Some(min), Some(max)) = (minimum, maximum)
        && min > max
    {
        return Err(SchemaError::new(
            join(path, "minimum"),
            format!("minimum ({min}) is greater than maximum ({max})"),
        ));
    }
    let default = match p.get("default") {
        None => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => {
            return Err(wrong_default(path, if integer { "an integer" } else { "a number" }, other));
        }
    };
    Ok(FieldKind::Number { integer, minimum, maximum, default })
}

fn parse_boolean(p: &Map<String, Value>, path: &str) -> Result<FieldKind, SchemaError> {
    check_keys(p, path, &["type", "title", "description", "default"], "a boolean field")?;
    let default = match p.get("default") {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => return Err(wrong_default(path, "true or false", other)),
    };
    Ok(FieldKind::Boolean { default })
}

fn parse_single_select(p: &Map<String, Value>, path: &str) -> Result<FieldKind, SchemaError> {
    check_keys(
        p,
        path,
        &["type", "title", "description", "enum", "enumNames", "oneOf", "default"],
        "a single-select field",
    )?;
    let options = match (p.get("enum"), p.get("oneOf")) {
        (Some(_), Some(_)) => {
            return Err(SchemaError::new(
                join(path, "oneOf"),
                "use either enum or oneOf for the options, not both",
            ));
        }
        (Some(values), None) => {
            let values = parse_enum_values(values, &join(path, "enum"))?;
            match p.get("enumNames") {
                None => values.into_iter().map(|value| EnumOption { value, title: None }).collect(),
                Some(names) => {
                    let names = parse_enum_names(names, &join(path, "enumNames"))?;
                    if names.len() != values.len() {
                        return Err(SchemaError::new(
                            join(path, "enumNames"),
                            format!(
                                "has {} names but enum has {} values; they must be the same length",
                                names.len(),
                                values.len()
                            ),
                        ));
                    }
                    values
                        .into_iter()
                        .zip(names)
                        .map(|(value, title)| EnumOption { value, title: Some(title) })
                        .collect()
                }
            }
        }
        (None, Some(one_of)) => {
            if p.contains_key("enumNames") {
                return Err(SchemaError::new(join(path, "enumNames"), "is only allowed together with enum"));
            }
            parse_titled_options(one_of, &join(path, "oneOf"))?
        }
        (None, None) => unreachable!("called only with enum or oneOf present"),
    };
    let default = match p.get("default") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(wrong_default(path, "a string", other)),
    };
    Ok(FieldKind::SingleSelect { options, default })
}

fn parse_multi_select(p: &Map<String, Value>, path: &str) -> Result<FieldKind, SchemaError> {
    check_keys(
        p,
        path,
        &["type", "title", "description", "items", "minItems", "maxItems", "default"],
        "a multi-select field",
    )?;
    let items_path = join(path, "items");
    let items = match p.get("items") {
        None => {
            return Err(SchemaError::new(
                items_path,
                "is required: an array field is a multi select and must list its options in items",
            ));
        }
        Some(Value::Object(o)) => o,
        Some(other) => {
            return Err(SchemaError::new(
                items_path,
                format!("must be an object, found {}", describe(other)),
            ));
        }
    };
    if items.contains_key("$ref") {
        return Err(SchemaError::new(
            join(&items_path, "$ref"),
            "$ref is not supported: every property must be written out in place",
        ));
    }
    match items.get("type") {
        None | Some(Value::String(_)) => {}
        Some(other) => {
            return Err(SchemaError::new(
                join(&items_path, "type"),
                format!("must be \"string\", found {}", describe(other)),
            ));
        }
    }
    let item_type = items.get("type").and_then(Value::as_str);
    match item_type {
        None | Some("string") => {}
        Some("object") => {
            return Err(SchemaError::new(
                join(&items_path, "type"),
                "arrays of objects are not supported; an array field must be a multi select of strings",
            ));
        }
        Some("array") => {
            return Err(SchemaError::new(
                join(&items_path, "type"),
                "nested arrays are not supported; an array field must be a multi select of strings",
            ));
        }
        Some(other) => {
            return Err(SchemaError::new(
                join(&items_path, "type"),
                format!(
                    "must be \"string\", found {other:?}; an array field must be a multi select of strings"
                ),
            ));
        }
    }
    for k in ["allOf", "oneOf", "not", "if", "then", "else"] {
        if items.contains_key(k) {
            return Err(SchemaError::new(
                join(&items_path, k),
                format!(
                    "composition ({k}) is not supported here; titled multi-select options go in items.anyOf"
                ),
            ));
        }
    }
    let options = match (items.get("enum"), items.get("anyOf")) {
        (Some(_), Some(_)) => {
            return Err(SchemaError::new(
                join(&items_path, "anyOf"),
                "use either enum or anyOf for the options, not both",
            ));
        }
        (Some(values), None) => {
            check_keys(items, &items_path, &["type", "enum"], "the items of a multi-select field")?;
            if item_type.is_none() {
                return Err(SchemaError::new(
                    join(&items_path, "type"),
                    "is required and must be \"string\" next to enum",
                ));
            }
            parse_enum_values(values, &join(&items_path, "enum"))?
                .into_iter()
                .map(|value| EnumOption { value, title: None })
                .collect()
        }
        (None, Some(any_of)) => {
            check_keys(items, &items_path, &["type", "anyOf"], "the items of a multi-select field")?;
            parse_titled_options(any_of, &join(&items_path, "anyOf"))?
        }
        (None, None) => {
            return Err(SchemaError::new(
                items_path,
                "must list the options, as enum (with type \"string\") or as anyOf [{const, title}]",
            ));
        }
    };
    let min_items = opt_length(p, path, "minItems")?;
    let max_items = opt_length(p, path, "maxItems")?;
    if let (Some(min), Some(max)) = (min_items, max_items)
        && min > max
    {
        return Err(SchemaError::new(
            join(path, "minItems"),
            format!("minItems ({min}) is greater than maxItems ({max})"),
        ));
    }
    let default = match p.get("default") {
        None => None,
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => {
            Some(a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
        }
        Some(other) => return Err(wrong_default(path, "an array of strings", other)),
    };
    Ok(FieldKind::MultiSelect { options, min_items, max_items, default })
}

fn parse_enum_values(v: &Value, path: &str) -> Result<Vec<String>, SchemaError> {
    let values = string_list(v, path, "option values")?;
    let mut seen = HashSet::with_capacity(values.len());
    for (i, value) in values.iter().enumerate() {
        if !seen.insert(value.as_str()) {
            return Err(SchemaError::new(
                format!("{path}[{i}]"),
                format!("duplicate option value {value:?}"),
            ));
        }
    }
    Ok(values)
}

fn parse_enum_names(v: &Value, path: &str) -> Result<Vec<String>, SchemaError> {
    string_list(v, path, "option labels")
}

/// A non-empty array of at most [`MAX_ENUM_OPTIONS`] strings.
fn string_list(v: &Value, path: &str, what: &str) -> Result<Vec<String>, SchemaError> {
    let arr = v.as_array().ok_or_else(|| {
        SchemaError::new(path, format!("must be an array of {what} (strings), found {}", describe(v)))
    })?;
    check_option_count(arr.len(), path)?;
    arr.iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str().map(str::to_owned).ok_or_else(|| {
                SchemaError::new(
                    format!("{path}[{i}]"),
                    format!("must be a string, found {}", describe(item)),
                )
            })
        })
        .collect()
}

fn check_option_count(n: usize, path: &str) -> Result<(), SchemaError> {
    if n == 0 {
        return Err(SchemaError::new(path, "must list at least one option"));
    }
    if n > MAX_ENUM_OPTIONS {
        return Err(SchemaError::new(
            path,
            format!("has {n} options; at most {MAX_ENUM_OPTIONS} are allowed"),
        ));
    }
    Ok(())
}

/// `[{"const": "…", "title": "…"}, …]` (the `oneOf` of a titled single select,
/// the `items.anyOf` of a titled multi select).
fn parse_titled_options(v: &Value, path: &str) -> Result<Vec<EnumOption>, SchemaError> {
    let arr = v.as_array().ok_or_else(|| {
        SchemaError::new(
            path,
            format!("must be an array of {{\"const\", \"title\"}} options, found {}", describe(v)),
        )
    })?;
    check_option_count(arr.len(), path)?;
    let mut seen = HashSet::with_capacity(arr.len());
    let mut options = Vec::with_capacity(arr.len());
    for (i, item) in arr.iter().enumerate() {
        let ipath = format!("{path}[{i}]");
        let o = item.as_object().ok_or_else(|| {
            SchemaError::new(
                &ipath,
                format!("must be an object {{\"const\", \"title\"}}, found {}", describe(item)),
            )
        })?;
        check_keys(o, &ipath, &["const", "title"], "an option")?;
        let value = match o.get("const") {
            Some(Value::String(s)) => s.clone(),
            None => return Err(SchemaError::new(join(&ipath, "const"), "is required")),
            Some(other) => {
                return Err(SchemaError::new(
                    join(&ipath, "const"),
                    format!("must be a string, found {}", describe(other)),
                ));
            }
        };
        let title = match o.get("title") {
            Some(Value::String(s)) => s.clone(),
            None => return Err(SchemaError::new(join(&ipath, "title"), "is required")),
            Some(other) => {
                return Err(SchemaError::new(
                    join(&ipath, "title"),
                    format!("must be a string, found {}", describe(other)),
                ));
            }
        };
        if !seen.insert(value.clone()) {
            return Err(SchemaError::new(join(&ipath, "const"), format!("duplicate option value {value:?}")));
        }
        options.push(EnumOption { value, title: Some(title) });
    }
    Ok(options)
}

/// Rejects every key of `o` not in `allowed` (or tolerated), with a reason.
fn check_keys(o: &Map<String, Value>, path: &str, allowed: &[&str], place: &str) -> Result<(), SchemaError> {
    for k in o.keys() {
        if allowed.contains(&k.as_str()) || TOLERATED_KEYWORDS.contains(&k.as_str()) {
            continue;
        }
        return Err(unsupported_keyword(path, k, place));
    }
    Ok(())
}

fn unsupported_keyword(path: &str, k: &str, place: &str) -> SchemaError {
    let reason = match k {
        "$ref" => "$ref is not supported: every property must be written out in place".to_owned(),
        "$defs" | "definitions" => {
            format!("{k} is not supported: every property must be written out in place")
        }
        "allOf" | "anyOf" | "oneOf" | "not" | "if" | "then" | "else" => {
            format!("composition ({k}) is not supported in {place}")
        }
        "required" if !path.is_empty() => {
            "required belongs in the schema's top-level required list, not on a property".to_owned()
        }
        "properties" | "additionalProperties" | "patternProperties" | "required" => {
            format!("nested objects are not supported ({k} in {place})")
        }
        "enumNames" => "is only allowed together with enum".to_owned(),
        _ => format!("unsupported keyword {k:?} in {place}"),
    };
    SchemaError::new(join(path, k), reason)
}

fn opt_string(o: &Map<String, Value>, path: &str, key: &str) -> Result<Option<String>, SchemaError> {
    match o.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => {
            Err(SchemaError::new(join(path, key), format!("must be a string, found {}", describe(other))))
        }
    }
}

fn opt_length(o: &Map<String, Value>, path: &str, key: &str) -> Result<Option<u64>, SchemaError> {
    let Some(v) = o.get(key) else {
        return Ok(None);
    };
    let err = |reason: String| Err(SchemaError::new(join(path, key), reason));
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                return Ok(Some(u));
            }
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f < 0.0 {
                err(format!("must not be negative, found {n}"))
            } else if f.fract() == 0.0 && f <= u64::MAX as f64 {
                Ok(Some(f as u64))
            } else {
                err(format!("must be a non-negative integer, found {n}"))
            }
        }
        other => err(format!("must be a non-negative integer, found {}", describe(other))),
    }
}

fn opt_number(o: &Map<String, Value>, path: &str, key: &str) -> Result<Option<f64>, SchemaError> {
    match o.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(other) => {
            Err(SchemaError::new(join(path, key), format!("must be a number, found {}", describe(other))))
        }
    }
}

fn wrong_default(path: &str, expected: &str, found: &Value) -> SchemaError {
    SchemaError::new(join(path, "default"), format!("must be {expected}, found {}", describe(found)))
}

/// `a.b`, or just `b` when `a` is empty.
pub(crate) fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_owned(),
        (_, true) => a.to_owned(),
        _ => format!("{a}.{b}"),
    }
}

/// A short description of a JSON value's type, for error messages.
pub(crate) fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema_with(prop: Value) -> Value {
        json!({"type": "object", "properties": {"f": prop}})
    }

    fn field(prop: Value) -> FieldKind {
        parse_requested_schema(&schema_with(prop)).expect("valid").fields.remove(0).kind
    }

    #[track_caller]
    fn rejects(schema: Value, path: &str, reason_part: &str) {
        let err = parse_requested_schema(&schema).expect_err("should be rejected");
        assert_eq!(err.path, path, "wrong path for {err}");
        assert!(err.reason.contains(reason_part), "reason {:?} does not contain {reason_part:?}", err.reason);
    }

    #[track_caller]
    fn rejects_prop(prop: Value, path: &str, reason_part: &str) {
        rejects(schema_with(prop), path, reason_part);
    }

    // ---- accepted shapes -------------------------------------------------

    #[test]
    fn minimal_and_empty_schemas() {
        let s = parse_requested_schema(&json!({"type": "object", "properties": {}})).unwrap();
        assert_eq!(s, RequestedSchema { title: None, description: None, fields: vec![] });
        let s = parse_requested_schema(&json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object", "title": "T", "description": "D",
            "properties": {"a": {"type": "string"}}, "required": ["a"],
            "additionalProperties": false, "$comment": "hi"
        }))
        .unwrap();
        assert_eq!(s.title.as_deref(), Some("T"));
        assert_eq!(s.description.as_deref(), Some("D"));
        assert!(s.fields[0].required);
    }

    #[test]
    fn text_field() {
        let k = field(json!({"type": "string", "title": "Name", "minLength": 2,
            "maxLength": 10, "format": "email", "default": "a@b.co"}));
        assert_eq!(
            k,
            FieldKind::Text {
                min_length: Some(2),
                max_length: Some(10),
                format: Some(TextFormat::Email),
                default: Some("a@b.co".into())
            }
        );
        for (f, tf) in [
            ("email", TextFormat::Email),
            ("uri", TextFormat::Uri),
            ("date", TextFormat::Date),
            ("date-time", TextFormat::DateTime),
        ] {
            match field(json!({"type": "string", "format": f})) {
                FieldKind::Text { format, .. } => assert_eq!(format, Some(tf)),
                other => panic!("{other:?}"),
            }
            assert_eq!(tf.as_str(), f);
        }
    }

    #[test]
    fn tolerated_keywords_are_dropped() {
        let k = field(json!({"type": "string", "pattern": "^[a-z]+$",
            "examples": ["abc"], "$comment": "x"}));
        assert_eq!(k, FieldKind::Text { min_length: None, max_length: None, format: None, default: None });
        // The pattern is not enforced on defaults either.
        field(json!({"type": "string", "pattern": "^[a-z]+$", "default": "123"}));
    }

    #[test]
    fn number_fields() {
        assert_eq!(
            field(json!({"type": "number", "minimum": -1.5, "maximum": 2, "default": 0.5})),
            FieldKind::Number { integer: false, minimum: Some(-1.5), maximum: Some(2.0), default: Some(0.5) }
        );
        assert_eq!(
            field(json!({"type": "integer", "default": 3})),
            FieldKind::Number { integer: true, minimum: None, maximum: None, default: Some(3.0) }
        );
        // An integral float is an integer.
        field(json!({"type": "integer", "default": 3.0}));
        // minimum == maximum is fine.
        field(json!({"type": "integer", "minimum": 3, "maximum": 3}));
    }

    #[test]
    fn boolean_field() {
        assert_eq!(
            field(json!({"type": "boolean", "default": false})),
            FieldKind::Boolean { default: Some(false) }
        );
        assert_eq!(field(json!({"type": "boolean"})), FieldKind::Boolean { default: None });
    }

    #[test]
    fn single_select_shapes() {
        let untitled = field(json!({"type": "string", "enum": ["a", "b"], "default": "b"}));
        assert_eq!(
            untitled,
            FieldKind::SingleSelect {
                options: vec![
                    EnumOption { value: "a".into(), title: None },
                    EnumOption { value: "b".into(), title: None }
                ],
                default: Some("b".into())
            }
        );
        let titled = field(json!({"type": "string",
            "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}));
        let legacy = field(json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}));
        assert_eq!(titled, legacy);
        match titled {
            FieldKind::SingleSelect { options, default } => {
                assert_eq!(options[1].title.as_deref(), Some("B"));
                assert_eq!(default, None);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn multi_select_shapes() {
        let untitled = field(json!({"type": "array", "minItems": 1, "maxItems": 2,
            "items": {"type": "string", "enum": ["x", "y", "z"]}, "default": ["x"]}));
        match &untitled {
            FieldKind::MultiSelect { options, min_items, max_items, default } => {
                assert_eq!(options.len(), 3);
                assert!(options.iter().all(|o| o.title.is_none()));
                assert_eq!((*min_items, *max_items), (Some(1), Some(2)));
                assert_eq!(default.as_deref(), Some(&["x".to_owned()][..]));
            }
            other => panic!("{other:?}"),
        }
        let titled = field(json!({"type": "array",
            "items": {"anyOf": [{"const": "x", "title": "X"}]}, "default": []}));
        match titled {
            FieldKind::MultiSelect { options, default, .. } => {
                assert_eq!(options, vec![EnumOption { value: "x".into(), title: Some("X".into()) }]);
                assert_eq!(default, Some(vec![]));
            }
            other => panic!("{other:?}"),
        }
        // `type: "string"` next to anyOf is accepted.
        field(json!({"type": "array", "items": {"type": "string",
            "anyOf": [{"const": "x", "title": "X"}]}}));
    }

    #[test]
    fn property_order_follows_the_map() {
        let v = json!({"type": "object", "properties": {
            "zeta": {"type": "string"}, "alpha": {"type": "boolean"}, "mid": {"type": "number"}}});
        let s = parse_requested_schema(&v).unwrap();
        let expected: Vec<&str> = v["properties"].as_object().unwrap().keys().map(String::as_str).collect();
        let got: Vec<&str> = s.properties().map(|(n, _)| n).collect();
        assert_eq!(got, expected);
        assert_eq!(s.field("mid").unwrap().name, "mid");
        assert!(s.field("nope").is_none());
    }

    #[test]
    fn serializes_to_the_documented_shape() {
        let s = parse_requested_schema(&json!({"type": "object", "properties": {
            "email": {"type": "string", "title": "Email", "format": "email"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "ok": {"type": "boolean", "default": true},
            "pet": {"type": "string", "enum": ["cat"], "enumNames": ["Cats"]},
            "tags": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": ["a"]},
                     "default": ["a"]}
        }, "required": ["email"]}))
        .unwrap();
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["title"], Value::Null);
        let by_name =
            |n: &str| v["fields"].as_array().unwrap().iter().find(|f| f["name"] == n).unwrap().clone();
        assert_eq!(
            by_name("email"),
            json!({"name": "email", "title": "Email", "description": null, "required": true,
                "kind": "text", "min_length": null, "max_length": null, "format": "email",
                "default": null})
        );
        assert_eq!(
            by_name("age"),
            json!({"name": "age", "title": null, "description": null, "required": false,
                "kind": "number", "integer": true, "minimum": 0.0, "maximum": 150.0,
                "default": null})
        );
        assert_eq!(
            by_name("ok"),
            json!({"name": "ok", "title": null, "description": null, "required": false,
                "kind": "boolean", "default": true})
        );
        assert_eq!(
            by_name("pet"),
            json!({"name": "pet", "title": null, "description": null, "required": false,
                "kind": "single_select", "options": [{"value": "cat", "title": "Cats"}],
                "default": null})
        );
        assert_eq!(
            by_name("tags"),
            json!({"name": "tags", "title": null, "description": null, "required": false,
                "kind": "multi_select", "options": [{"value": "a", "title": null}],
                "min_items": 1, "max_items": null, "default": ["a"]})
        );
        let dt = field(json!({"type": "string", "format": "date-time"}));
        assert_eq!(serde_json::to_value(&dt).unwrap()["format"], "date-time");
    }

    #[test]
    fn default_values_for_answers() {
        assert_eq!(field(json!({"type": "integer", "default": 42})).default_value(), Some(json!(42)));
        assert_eq!(field(json!({"type": "number", "default": 2.75})).default_value(), Some(json!(2.75)));
        assert_eq!(
            field(json!({"type": "array", "items": {"type": "string", "enum": ["a"]},
                "default": ["a"]}))
            .default_value(),
            Some(json!(["a"]))
        );
        assert_eq!(field(json!({"type": "string"})).default_value(), None);
    }

    #[test]
    fn error_display() {
        assert_eq!(
            SchemaError::new("properties.age.minimum", "bad").to_string(),
            "properties.age.minimum: bad"
        );
        assert_eq!(SchemaError::new("", "bad").to_string(), "bad");
        assert_eq!(
            SchemaError::new("properties.a", "bad").prefixed("requestedSchema").path,
            "requestedSchema.properties.a"
        );
        assert_eq!(SchemaError::new("", "bad").prefixed("requestedSchema").path, "requestedSchema");
    }

    // ---- top-level rejections -------------------------------------------

    #[test]
    fn rejects_bad_top_level() {
        rejects(json!([]), "", "must be a JSON object");
        rejects(json!({"properties": {}}), "type", "is required");
        rejects(json!({"type": "array", "properties": {}}), "type", "must be \"object\"");
        rejects(json!({"type": "object"}), "properties", "is required");
        rejects(json!({"type": "object", "properties": []}), "properties", "must be an object");
        rejects(json!({"type": "object", "properties": {}, "title": 1}), "title", "must be a string");
        rejects(json!({"type": "object", "properties": {}, "$schema": 7}), "$schema", "must be a string");
        rejects(
            json!({"type": "object", "properties": {}, "additionalProperties": true}),
            "additionalProperties",
            "only `false`",
        );
        rejects(json!({"type": "object", "properties": {}, "$defs": {}}), "$defs", "not supported");
        rejects(json!({"type": "object", "properties": {}, "$ref": "#/x"}), "$ref", "$ref is not supported");
        rejects(json!({"type": "object", "properties": {}, "allOf": []}), "allOf", "composition");
        rejects(
            json!({"type": "object", "properties": {}, "minProperties": 1}),
            "minProperties",
            "unsupported keyword",
        );
    }

    #[test]
    fn rejects_bad_required() {
        let base =
            |req: Value| json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": req});
        rejects(base(json!(["a", "b"])), "required[1]", "not a property");
        rejects(base(json!(["a", 1])), "required[1]", "must be a property name");
        rejects(base(json!("a")), "required", "must be an array");
        parse_requested_schema(&base(json!([]))).unwrap();
    }

    #[test]
    fn rejects_oversized_schema_first() {
        // Too big *and* malformed: the size is what gets reported.
        let big = "x".repeat(MAX_SCHEMA_BYTES);
        let err = parse_requested_schema(&json!({"type": "nope", "description": big})).unwrap_err();
        assert_eq!(err.path, "");
        assert!(err.reason.contains("larger than 65536 bytes"), "{err}");
        // Just under the limit is fine.
        let v = json!({"type": "object", "properties": {}, "description": ""});
        let overhead = serde_json::to_vec(&v).unwrap().len();
        let fits = json!({"type": "object", "properties": {},
            "description": "x".repeat(MAX_SCHEMA_BYTES - overhead)});
        assert_eq!(serde_json::to_vec(&fits).unwrap().len(), MAX_SCHEMA_BYTES);
        parse_requested_schema(&fits).unwrap();
        let over = json!({"type": "object", "properties": {},
            "description": "x".repeat(MAX_SCHEMA_BYTES - overhead + 1)});
        assert!(parse_requested_schema(&over).is_err());
    }

    #[test]
    fn rejects_too_many_properties() {
        let mut props = Map::new();
        for i in 0..MAX_PROPERTIES {
            props.insert(format!("p{i}"), json!({"type": "boolean"}));
        }
        let ok = json!({"type": "object", "properties": props.clone()});
        assert_eq!(parse_requested_schema(&ok).unwrap().fields.len(), 100);
        props.insert("one_more".into(), json!({"type": "boolean"}));
        rejects(
            json!({"type": "object", "properties": props}),
            "properties",
            "has 101 properties; at most 100",
        );
    }

    #[test]
    fn rejects_bad_property_names() {
        rejects(
            json!({"type": "object", "properties": {"": {"type": "string"}}}),
            "properties",
            "must not be empty",
        );
        let long = "é".repeat(MAX_PROPERTY_NAME_CHARS + 1);
        rejects(
            json!({"type": "object", "properties": {long.clone(): {"type": "string"}}}),
            &format!("properties.{long}"),
            "129 characters",
        );
        // 128 two-byte characters are 256 bytes but only 128 characters.
        let ok = "é".repeat(MAX_PROPERTY_NAME_CHARS);
        parse_requested_schema(&json!({"type": "object", "properties": {ok: {"type": "string"}}})).unwrap();
    }

    // ---- property rejections -------------------------------------------

    #[test]
    fn rejects_non_object_property() {
        rejects_prop(json!("string"), "properties.f", "must be an object");
    }

    #[test]
    fn rejects_nested_objects() {
        rejects_prop(
            json!({"type": "object", "properties": {"x": {"type": "string"}}}),
            "properties.f.type",
            "nested objects are not supported",
        );
        rejects_prop(
            json!({"type": "string", "properties": {}}),
            "properties.f.properties",
            "nested objects",
        );
        rejects_prop(
            json!({"type": "string", "required": true}),
            "properties.f.required",
            "top-level required list",
        );
    }

    #[test]
    fn rejects_arrays_of_objects() {
        rejects_prop(
            json!({"type": "array", "items": {"type": "object", "properties": {}}}),
            "properties.f.items.type",
            "arrays of objects are not supported",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "number", "enum": [1]}}),
            "properties.f.items.type",
            "must be \"string\"",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "array"}}),
            "properties.f.items.type",
            "nested arrays",
        );
        rejects_prop(json!({"type": "array"}), "properties.f.items", "is required");
        rejects_prop(
            json!({"type": "array", "items": {"type": "string"}}),
            "properties.f.items",
            "must list the options",
        );
        rejects_prop(
            json!({"type": "array", "items": {"enum": ["a"]}}),
            "properties.f.items.type",
            "is required",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "string", "enum": ["a"], "minLength": 1}}),
            "properties.f.items.minLength",
            "unsupported keyword",
        );
        rejects_prop(
            json!({"type": "array", "items": [{"type": "string"}]}),
            "properties.f.items",
            "must be an object",
        );
    }

    #[test]
    fn rejects_ref() {
        rejects_prop(json!({"$ref": "#/$defs/x"}), "properties.f.$ref", "$ref");
        rejects_prop(
            json!({"type": "string", "$ref": "#/$defs/x"}),
            "properties.f.$ref",
            "$ref is not supported",
        );
        rejects_prop(json!({"type": "array", "items": {"$ref": "#/x"}}), "properties.f.items.$ref", "$ref");
    }

    #[test]
    fn rejects_composition_outside_titled_enums() {
        rejects_prop(json!({"allOf": [{"type": "string"}]}), "properties.f.allOf", "composition (allOf)");
        rejects_prop(
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            "properties.f.anyOf",
            "composition (anyOf)",
        );
        rejects_prop(
            json!({"type": "string", "anyOf": [{"const": "a", "title": "A"}]}),
            "properties.f.anyOf",
            "composition (anyOf)",
        );
        rejects_prop(
            json!({"type": "integer", "oneOf": [{"const": 1, "title": "one"}]}),
            "properties.f.oneOf",
            "only supported as the option list",
        );
        rejects_prop(
            json!({"type": "array", "oneOf": [{"const": "a", "title": "A"}], "items": {"type": "string", "enum": ["a"]}}),
            "properties.f.oneOf",
            "only supported as the option list",
        );
        rejects_prop(
            json!({"type": "array", "items": {"oneOf": [{"const": "a", "title": "A"}]}}),
            "properties.f.items.oneOf",
            "items.anyOf",
        );
        rejects_prop(json!({"not": {"type": "string"}}), "properties.f.not", "composition (not)");
    }

    #[test]
    fn rejects_missing_and_unknown_types() {
        rejects_prop(json!({"title": "x"}), "properties.f.type", "is required");
        rejects_prop(json!({"enum": ["a"]}), "properties.f.type", "is required");
        rejects_prop(json!({"type": "null"}), "properties.f.type", "unsupported type \"null\"");
        rejects_prop(json!({"type": "date"}), "properties.f.type", "unsupported type \"date\"");
        rejects_prop(json!({"type": ["string", "null"]}), "properties.f.type", "must be a single type name");
    }

    #[test]
    fn rejects_unknown_keywords_per_shape() {
        rejects_prop(
            json!({"type": "string", "exclusiveMinimum": 1}),
            "properties.f.exclusiveMinimum",
            "unsupported keyword \"exclusiveMinimum\" in a text field",
        );
        rejects_prop(json!({"type": "string", "minimum": 1}), "properties.f.minimum", "unsupported keyword");
        rejects_prop(
            json!({"type": "integer", "multipleOf": 2}),
            "properties.f.multipleOf",
            "in an integer field",
        );
        rejects_prop(json!({"type": "boolean", "const": true}), "properties.f.const", "unsupported keyword");
        rejects_prop(
            json!({"type": "string", "enum": ["a"], "maxLength": 3}),
            "properties.f.maxLength",
            "single-select",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "uniqueItems": true}),
            "properties.f.uniqueItems",
            "multi-select",
        );
        rejects_prop(
            json!({"type": "string", "oneOf": [{"const": "a", "title": "A", "description": "x"}]}),
            "properties.f.oneOf[0].description",
            "unsupported keyword",
        );
        rejects_prop(json!({"type": "string", "title": 5}), "properties.f.title", "must be a string");
        rejects_prop(
            json!({"type": "string", "description": ["x"]}),
            "properties.f.description",
            "must be a string",
        );
    }

    #[test]
    fn rejects_bad_formats() {
        rejects_prop(
            json!({"type": "string", "format": "uuid"}),
            "properties.f.format",
            "unsupported format \"uuid\"",
        );
        rejects_prop(json!({"type": "string", "format": 1}), "properties.f.format", "must be a string");
    }

    #[test]
    fn rejects_bad_enum_values() {
        rejects_prop(
            json!({"type": "string", "enum": ["a", 1]}),
            "properties.f.enum[1]",
            "must be a string, found an integer",
        );
        rejects_prop(
            json!({"type": "string", "enum": ["a", null]}),
            "properties.f.enum[1]",
            "must be a string, found null",
        );
        rejects_prop(json!({"type": "string", "enum": "a"}), "properties.f.enum", "must be an array");
        rejects_prop(json!({"type": "string", "enum": []}), "properties.f.enum", "at least one option");
        rejects_prop(
            json!({"type": "array", "items": {"type": "string", "enum": ["a", true]}}),
            "properties.f.items.enum[1]",
            "must be a string",
        );
        rejects_prop(
            json!({"type": "string", "oneOf": [{"const": 1, "title": "one"}]}),
            "properties.f.oneOf[0].const",
            "must be a string",
        );
        rejects_prop(
            json!({"type": "string", "oneOf": [{"const": "a"}]}),
            "properties.f.oneOf[0].title",
            "is required",
        );
        rejects_prop(
            json!({"type": "string", "oneOf": [{"title": "A"}]}),
            "properties.f.oneOf[0].const",
            "is required",
        );
        rejects_prop(json!({"type": "string", "oneOf": ["a"]}), "properties.f.oneOf[0]", "must be an object");
        rejects_prop(
            json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": 2}]}}),
            "properties.f.items.anyOf[0].title",
            "must be a string",
        );
    }

    #[test]
    fn rejects_duplicate_enum_values() {
        rejects_prop(
            json!({"type": "string", "enum": ["a", "b", "a"]}),
            "properties.f.enum[2]",
            "duplicate option value \"a\"",
        );
        rejects_prop(
            json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "a", "title": "B"}]}),
            "properties.f.oneOf[1].const",
            "duplicate",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "string", "enum": ["x", "x"]}}),
            "properties.f.items.enum[1]",
            "duplicate",
        );
        rejects_prop(
            json!({"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "x", "title": "Y"}]}}),
            "properties.f.items.anyOf[1].const",
            "duplicate",
        );
    }

    #[test]
    fn rejects_too_many_enum_options() {
        let ok: Vec<String> = (0..MAX_ENUM_OPTIONS).map(|i| format!("o{i}")).collect();
        field(json!({"type": "string", "enum": ok}));
        let too_many: Vec<String> = (0..=MAX_ENUM_OPTIONS).map(|i| format!("o{i}")).collect();
        rejects_prop(
            json!({"type": "string", "enum": too_many.clone()}),
            "properties.f.enum",
            "has 501 options; at most 500",
        );
        let titled: Vec<Value> = too_many.iter().map(|v| json!({"const": v, "title": v})).collect();
        rejects_prop(
            json!({"type": "array", "items": {"anyOf": titled}}),
            "properties.f.items.anyOf",
            "at most 500",
        );
    }

    #[test]
    fn rejects_enum_names_problems() {
        rejects_prop(
            json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}),
            "properties.f.enumNames",
            "has 1 names but enum has 2 values",
        );
        rejects_prop(
            json!({"type": "string", "enum": ["a"], "enumNames": [1]}),
            "properties.f.enumNames[0]",
            "must be a string",
        );
        rejects_prop(
            json!({"type": "string", "enumNames": ["A"]}),
            "properties.f.enumNames",
            "only allowed together with enum",
        );
        rejects_prop(
            json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}], "enumNames": ["A"]}),
            "properties.f.enumNames",
            "only allowed together with enum",
        );
        rejects_prop(
            json!({"type": "string", "enum": ["a"], "oneOf": [{"const": "a", "title": "A"}]}),
            "properties.f.oneOf",
            "not both",
        );
    }

    #[test]
    fn rejects_wrong_defaults() {
        rejects_prop(
            json!({"type": "string", "default": 1}),
            "properties.f.default",
            "must be a string, found an integer",
        );
        rejects_prop(
            json!({"type": "number", "default": "1"}),
            "properties.f.default",
            "must be a number, found a string",
        );
        rejects_prop(
            json!({"type": "integer", "default": 1.5}),
            "properties.f.default",
            "must be an integer",
        );
        rejects_prop(
            json!({"type": "boolean", "default": "true"}),
            "properties.f.default",
            "must be true or false",
        );
        rejects_prop(
            json!({"type": "string", "enum": ["a", "b"], "default": "c"}),
            "properties.f.default",
            "not one of the options",
        );
        rejects_prop(
            json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": "A"}),
            "properties.f.default",
            "not one of the options",
        );
        rejects_prop(
            json!({"type": "string", "enum": ["a"], "default": ["a"]}),
            "properties.f.default",
            "must be a string",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": "a"}),
            "properties.f.default",
            "must be an array of strings",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": ["b"]}),
            "properties.f.default",
            "not one of the options",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 1, "default": ["a", "b"]}),
            "properties.f.default",
            "at most 1",
        );
        // A default must also satisfy the field's own constraints.
        rejects_prop(
            json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 101}),
            "properties.f.default",
            "at most 100",
        );
        rejects_prop(
            json!({"type": "string", "maxLength": 2, "default": "abc"}),
            "properties.f.default",
            "at most 2 characters",
        );
        rejects_prop(
            json!({"type": "string", "format": "date", "default": "2025-02-30"}),
            "properties.f.default",
            "date",
        );
    }

    #[test]
    fn rejects_inverted_bounds() {
        rejects_prop(
            json!({"type": "string", "minLength": 5, "maxLength": 3}),
            "properties.f.minLength",
            "minLength (5) is greater than maxLength (3)",
        );
        rejects_prop(
            json!({"type": "number", "minimum": 5, "maximum": 1.5}),
            "properties.f.minimum",
            "minimum (5) is greater than maximum (1.5)",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": 2, "maxItems": 1}),
            "properties.f.minItems",
            "minItems (2) is greater than maxItems (1)",
        );
    }

    #[test]
    fn rejects_bad_lengths_and_numbers() {
        rejects_prop(
            json!({"type": "string", "minLength": -1}),
            "properties.f.minLength",
            "must not be negative",
        );
        rejects_prop(
            json!({"type": "string", "maxLength": -0.5}),
            "properties.f.maxLength",
            "must not be negative",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "maxItems": -3}),
            "properties.f.maxItems",
            "must not be negative",
        );
        rejects_prop(
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": -3}),
            "properties.f.minItems",
            "must not be negative",
        );
        rejects_prop(
            json!({"type": "string", "maxLength": 2.5}),
            "properties.f.maxLength",
            "must be a non-negative integer",
        );
        rejects_prop(
            json!({"type": "string", "maxLength": "3"}),
            "properties.f.maxLength",
            "must be a non-negative integer, found a string",
        );
        rejects_prop(json!({"type": "number", "minimum": "0"}), "properties.f.minimum", "must be a number");
        // An integral float is an acceptable length.
        assert!(matches!(
            field(json!({"type": "string", "maxLength": 3.0})),
            FieldKind::Text { max_length: Some(3), .. }
        ));
    }
}
