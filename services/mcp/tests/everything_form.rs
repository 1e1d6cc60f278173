//! The form `@modelcontextprotocol/server-everything`'s
//! `trigger-elicitation-request` tool sends: every schema variant in one
//! request, no `mode` field. The `requestedSchema` below is the server's
//! (`src/everything/tools/trigger-elicitation-request.ts` in
//! modelcontextprotocol/servers) verbatim; that tool has no `date-time`
//! field, so [`extended_params`] adds one (`meetingTime`), as the brief's list
//! of variants asks, together with a `pattern`-carrying field the spec's prose
//! shows.

// `3.14` is the server's own default, not an approximation of π.
#![allow(clippy::approx_constant)]

use herald_mcp::{ElicitRequest, FieldError, FieldKind, TextFormat, parse_elicit_params, validate_content};
use serde_json::{Map, Value, json};

fn everything_params() -> Value {
    json!({
        "message": "Please provide inputs for the following fields:",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {
                    "title": "String",
                    "type": "string",
                    "description": "Your full, legal name"
                },
                "check": {
                    "title": "Boolean",
                    "type": "boolean",
                    "description": "Agree to the terms and conditions"
                },
                "firstLine": {
                    "title": "String with default",
                    "type": "string",
                    "description": "Favorite first line of a story",
                    "default": "It was a dark and stormy night."
                },
                "email": {
                    "title": "String with email format",
                    "type": "string",
                    "format": "email",
                    "description": "Your email address (will be verified, and never shared with anyone else)"
                },
                "homepage": {
                    "type": "string",
                    "format": "uri",
                    "title": "String with uri format",
                    "description": "Portfolio / personal website"
                },
                "birthdate": {
                    "title": "String with date format",
                    "type": "string",
                    "format": "date",
                    "description": "Your date of birth"
                },
                "integer": {
                    "title": "Integer",
                    "type": "integer",
                    "description": "Your favorite integer (do not give us your phone number, pin, or other sensitive info)",
                    "minimum": 1,
                    "maximum": 100,
                    "default": 42
                },
                "number": {
                    "title": "Number in range 1-1000",
                    "type": "number",
                    "description": "Favorite number (there are no wrong answers)",
                    "minimum": 0,
                    "maximum": 1000,
                    "default": 3.14
                },
                "untitledSingleSelectEnum": {
                    "type": "string",
                    "title": "Untitled Single Select Enum",
                    "description": "Choose your favorite friend",
                    "enum": ["Monica", "Rachel", "Joey", "Chandler", "Ross", "Phoebe"],
                    "default": "Monica"
                },
                "untitledMultipleSelectEnum": {
                    "type": "array",
                    "title": "Untitled Multiple Select Enum",
                    "description": "Choose your favorite instruments",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {"type": "string", "enum": ["Guitar", "Piano", "Violin", "Drums", "Bass"]},
                    "default": ["Guitar"]
                },
                "titledSingleSelectEnum": {
                    "type": "string",
                    "title": "Titled Single Select Enum",
                    "description": "Choose your favorite hero",
                    "oneOf": [
                        {"const": "hero-1", "title": "Superman"},
                        {"const": "hero-2", "title": "Green Lantern"},
                        {"const": "hero-3", "title": "Wonder Woman"}
                    ],
                    "default": "hero-1"
                },
                "titledMultipleSelectEnum": {
                    "type": "array",
                    "title": "Titled Multiple Select Enum",
                    "description": "Choose your favorite types of fish",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "anyOf": [
                            {"const": "fish-1", "title": "Tuna"},
                            {"const": "fish-2", "title": "Salmon"},
                            {"const": "fish-3", "title": "Trout"}
                        ]
                    },
                    "default": ["fish-1"]
                },
                "legacyTitledEnum": {
                    "type": "string",
                    "title": "Legacy Titled Single Select Enum",
                    "description": "Choose your favorite type of pet",
                    "enum": ["pet-1", "pet-2", "pet-3", "pet-4", "pet-5"],
                    "enumNames": ["Cats", "Dogs", "Birds", "Fish", "Reptiles"],
                    "default": "pet-1"
                }
            },
            "required": ["name"]
        }
    })
}

fn extended_params() -> Value {
    let mut p = everything_params();
    let props = p["requestedSchema"]["properties"].as_object_mut().unwrap();
    props.insert(
        "meetingTime".into(),
        json!({"type": "string", "format": "date-time", "title": "Meeting time",
               "description": "When shall we meet?"}),
    );
    props.insert(
        "nickname".into(),
        json!({"type": "string", "minLength": 2, "maxLength": 12, "pattern": "^[a-z]+$"}),
    );
    p["requestedSchema"]["required"] = json!(["name", "email", "meetingTime"]);
    p
}

fn schema_of(params: &Value) -> herald_mcp::RequestedSchema {
    match parse_elicit_params(params).expect("the everything form is valid") {
        ElicitRequest::Form { message, schema } => {
            assert_eq!(message, "Please provide inputs for the following fields:");
            schema
        }
        other => panic!("expected a form, got {other:?}"),
    }
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("{other:?}"),
    }
}

#[test]
fn parses_every_variant() {
    let schema = schema_of(&everything_params());
    assert_eq!(schema.fields.len(), 13);
    let kind = |n: &str| &schema.field(n).unwrap_or_else(|| panic!("{n}")).kind;

    assert!(schema.field("name").unwrap().required);
    assert_eq!(schema.fields.iter().filter(|f| f.required).count(), 1);
    assert_eq!(schema.field("name").unwrap().title.as_deref(), Some("String"));
    assert_eq!(schema.field("name").unwrap().description.as_deref(), Some("Your full, legal name"));

    assert!(matches!(kind("email"), FieldKind::Text { format: Some(TextFormat::Email), default: None, .. }));
    assert!(matches!(kind("homepage"), FieldKind::Text { format: Some(TextFormat::Uri), .. }));
    assert!(matches!(kind("birthdate"), FieldKind::Text { format: Some(TextFormat::Date), .. }));
    assert_eq!(
        kind("firstLine"),
        &FieldKind::Text {
            min_length: None,
            max_length: None,
            format: None,
            default: Some("It was a dark and stormy night.".into())
        }
    );
    assert_eq!(kind("check"), &FieldKind::Boolean { default: None });
    assert_eq!(
        kind("integer"),
        &FieldKind::Number { integer: true, minimum: Some(1.0), maximum: Some(100.0), default: Some(42.0) }
    );
    assert_eq!(
        kind("number"),
        &FieldKind::Number { integer: false, minimum: Some(0.0), maximum: Some(1000.0), default: Some(3.14) }
    );

    let options = |n: &str| -> Vec<(String, Option<String>)> {
        match kind(n) {
            FieldKind::SingleSelect { options, .. } | FieldKind::MultiSelect { options, .. } => {
                options.iter().map(|o| (o.value.clone(), o.title.clone())).collect()
            }
            other => panic!("{n}: {other:?}"),
        }
    };
    assert_eq!(options("untitledSingleSelectEnum").len(), 6);
    assert!(options("untitledSingleSelectEnum").iter().all(|(_, t)| t.is_none()));
    assert_eq!(options("titledSingleSelectEnum")[1], ("hero-2".to_owned(), Some("Green Lantern".to_owned())));
    assert_eq!(options("legacyTitledEnum")[4], ("pet-5".to_owned(), Some("Reptiles".to_owned())));
    assert_eq!(options("untitledMultipleSelectEnum")[0], ("Guitar".to_owned(), None));
    assert_eq!(options("titledMultipleSelectEnum")[2], ("fish-3".to_owned(), Some("Trout".to_owned())));
    assert!(matches!(
        kind("untitledMultipleSelectEnum"),
        FieldKind::MultiSelect { min_items: Some(1), max_items: Some(3), default: Some(d), .. } if d == &["Guitar"]
    ));
    assert!(matches!(
        kind("titledSingleSelectEnum"),
        FieldKind::SingleSelect { default: Some(d), .. } if d == "hero-1"
    ));

    // Fields come in serde_json's map order.
    let params = everything_params();
    let expected: Vec<&str> =
        params["requestedSchema"]["properties"].as_object().unwrap().keys().map(String::as_str).collect();
    let got: Vec<&str> = schema.properties().map(|(n, _)| n).collect();
    assert_eq!(got, expected);

    // The browser shape is serializable and carries every field.
    let v = serde_json::to_value(&schema).unwrap();
    assert_eq!(v["fields"].as_array().unwrap().len(), 13);
}

#[test]
fn minimal_answer_gets_every_default() {
    let schema = schema_of(&everything_params());
    let content = validate_content(&schema, Some(&json!({"name": "Ada Lovelace"}))).unwrap();
    assert_eq!(
        content,
        obj(json!({
            "name": "Ada Lovelace",
            "firstLine": "It was a dark and stormy night.",
            "integer": 42,
            "number": 3.14,
            "untitledSingleSelectEnum": "Monica",
            "untitledMultipleSelectEnum": ["Guitar"],
            "titledSingleSelectEnum": "hero-1",
            "titledMultipleSelectEnum": ["fish-1"],
            "legacyTitledEnum": "pet-1"
        }))
    );
    // The integer default goes out as an integer, not 42.0.
    assert_eq!(serde_json::to_string(&content["integer"]).unwrap(), "42");
}

#[test]
fn full_answer_is_kept_as_given() {
    let schema = schema_of(&everything_params());
    let answer = json!({
        "name": "Ada Lovelace",
        "check": true,
        "firstLine": "Call me Ishmael.",
        "email": "ada@example.org",
        "homepage": "https://ada.example.org/notes",
        "birthdate": "1815-12-10",
        "integer": 7,
        "number": 999.5,
        "untitledSingleSelectEnum": "Phoebe",
        "untitledMultipleSelectEnum": ["Piano", "Drums", "Bass"],
        "titledSingleSelectEnum": "hero-3",
        "titledMultipleSelectEnum": ["fish-2", "fish-3"],
        "legacyTitledEnum": "pet-4"
    });
    let content = validate_content(&schema, Some(&answer)).unwrap();
    assert_eq!(Value::Object(content), answer);
}

#[test]
fn wrong_answer_lists_every_error() {
    let schema = schema_of(&everything_params());
    let answer = json!({
        "check": "yes",
        "email": "not-an-email",
        "homepage": "ada.example.org",
        "birthdate": "1815-02-30",
        "integer": 101,
        "number": 12.5,
        "untitledSingleSelectEnum": "Gunther",
        "untitledMultipleSelectEnum": ["Piano", "Piano"],
        "titledSingleSelectEnum": "Superman",
        "titledMultipleSelectEnum": [],
        "legacyTitledEnum": "Cats",
        "favoriteColor": "blue"
    });
    let errors = validate_content(&schema, Some(&answer)).unwrap_err();
    let by_field = |f: &str| -> &FieldError {
        errors.iter().find(|e| e.field == f).unwrap_or_else(|| panic!("no error for {f}: {errors:?}"))
    };
    assert_eq!(by_field("name").message, "is required");
    assert!(by_field("check").message.starts_with("must be true or false"));
    assert_eq!(by_field("email").message, "must be an email address");
    assert!(by_field("homepage").message.starts_with("must be an absolute URI"));
    assert_eq!(by_field("birthdate").message, "must be a date as YYYY-MM-DD");
    assert_eq!(by_field("integer").message, "must be at most 100");
    assert_eq!(by_field("untitledSingleSelectEnum").message, "\"Gunther\" is not one of the options");
    assert_eq!(by_field("untitledMultipleSelectEnum").message, "\"Piano\" is selected more than once");
    assert_eq!(by_field("titledSingleSelectEnum").message, "\"Superman\" is not one of the options");
    assert_eq!(by_field("titledMultipleSelectEnum").message, "must select at least 1 option");
    assert_eq!(by_field("legacyTitledEnum").message, "\"Cats\" is not one of the options");
    assert_eq!(by_field("favoriteColor").message, "is not in the form");
    // number 12.5 is fine; everything else is reported, exactly once each.
    assert!(errors.iter().all(|e| e.field != "number"));
    assert_eq!(errors.len(), 12, "{errors:?}");
    // Errors serialize for the dashboard.
    let v = serde_json::to_value(&errors).unwrap();
    assert_eq!(v[0].as_object().unwrap().len(), 2);
}

#[test]
fn type_mismatches_are_reported() {
    let schema = schema_of(&everything_params());
    let errors = validate_content(
        &schema,
        Some(&json!({
            "name": 5,
            "integer": 4.2,
            "number": "3",
            "untitledMultipleSelectEnum": "Guitar",
            "titledMultipleSelectEnum": ["fish-1", "fish-2", "fish-3", "fish-9"]
        })),
    )
    .unwrap_err();
    let msgs: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(msgs.contains(&"name: must be a string, found an integer".to_owned()), "{msgs:?}");
    assert!(msgs.contains(&"integer: must be an integer, found 4.2".to_owned()), "{msgs:?}");
    assert!(msgs.contains(&"number: must be a number, found a string".to_owned()), "{msgs:?}");
    assert!(
        msgs.contains(&"untitledMultipleSelectEnum: must be an array of strings, found a string".to_owned()),
        "{msgs:?}"
    );
    assert!(
        msgs.contains(&"titledMultipleSelectEnum: \"fish-9\" is not one of the options".to_owned()),
        "{msgs:?}"
    );
    assert_eq!(errors.len(), 5);
}

#[test]
fn extended_form_with_date_time_and_pattern() {
    let schema = schema_of(&extended_params());
    assert_eq!(schema.fields.len(), 15);
    assert!(matches!(
        schema.field("meetingTime").unwrap().kind,
        FieldKind::Text { format: Some(TextFormat::DateTime), .. }
    ));
    // `pattern` is tolerated and not enforced.
    let content = validate_content(
        &schema,
        Some(&json!({"name": "Ada", "email": "ada@example.org",
                     "meetingTime": "2026-09-01T10:00:00+02:00", "nickname": "ADA-1"})),
    )
    .unwrap();
    assert_eq!(content["meetingTime"], "2026-09-01T10:00:00+02:00");
    assert_eq!(content["nickname"], "ADA-1");
    assert_eq!(content["integer"], 42);

    let errors = validate_content(
        &schema,
        Some(&json!({"name": "Ada", "meetingTime": "2026-09-01 10:00", "nickname": "a"})),
    )
    .unwrap_err();
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    for f in ["email", "meetingTime", "nickname"] {
        assert!(fields.contains(&f), "{f} missing from {errors:?}");
    }
}

#[test]
fn decline_and_cancel_need_no_content() {
    use herald_mcp::{ElicitAction, ElicitResult};
    let schema = schema_of(&everything_params());
    let content = validate_content(&schema, Some(&json!({"name": "x"}))).unwrap();
    let v = serde_json::to_value(ElicitResult::accept_form(content)).unwrap();
    assert_eq!(v["action"], "accept");
    assert_eq!(v["content"]["integer"], 42);
    assert_eq!(serde_json::to_value(ElicitResult::decline()).unwrap(), json!({"action": "decline"}));
    assert_eq!(ElicitAction::Cancel.as_str(), "cancel");
}
