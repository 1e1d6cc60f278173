//! Fingerprints through the public API: trivial rewording keeps a fingerprint,
//! a different question, tool, server or schema changes it.

use herald_policy::fingerprint::{canonical_schema, fingerprint_text, normalize_message};
use serde_json::{Value, json};

fn same_message(a: &str, b: &str) {
    assert_eq!(normalize_message(a), normalize_message(b), "{a:?} and {b:?} should normalise alike");
}

fn different_message(a: &str, b: &str) {
    assert_ne!(normalize_message(a), normalize_message(b), "{a:?} and {b:?} should stay apart");
}

fn schema(json: &str) -> Value {
    match serde_json::from_str(json) {
        Ok(value) => value,
        Err(e) => panic!("{json} should parse: {e}"),
    }
}

// --- normalize_message ---------------------------------------------------------

#[test]
fn case_spacing_and_trailing_punctuation_do_not_matter() {
    same_message("Deploy to production?", "deploy to PRODUCTION");
    same_message("Deploy   to\tproduction ?!", "  Deploy to\nproduction.  ");
    same_message("Deploy to production…", "Deploy to production");
    same_message("Deploy to production？", "Deploy to production");
    same_message("Deploy\u{200B} to production", "Deploy to production");
    assert_eq!(normalize_message("  Deploy   to\nPRODUCTION?! "), "deploy to production");
}

#[test]
fn unicode_is_lowercased() {
    assert_eq!(normalize_message("ÜBERWEISUNG BESTÄTIGEN?"), "überweisung bestätigen");
    same_message("Подтвердить ПЛАТЁЖ?", "подтвердить платёж");
}

#[test]
fn what_a_person_decides_on_is_not_masked() {
    // Declining build 77 does not decline build 78.
    different_message("Deploy build 77 to production?", "Deploy build 78 to production?");
    assert_eq!(normalize_message("Deploy build 77 to production?"), "deploy build 77 to production");
    // Amounts, quantities, order numbers.
    different_message("Refund 10 € to the customer?", "Refund 1000 € to the customer?");
    different_message("Pay $1,234.50 now?", "Pay $7 now?");
    different_message("Approve order #4521 for 3 items?", "Approve order #98 for 3 items?");
    different_message("Approve order #4521 for 3 items?", "Approve order #4521 for 12 items?");
    different_message("Pick the 3rd option", "pick the 21st option");
    different_message("Scale to 3 replicas?", "Scale to 30 replicas?");
    // Files, branches, people, addresses.
    different_message("Delete a.txt?", "Delete b.txt?");
    different_message("Delete report-3.pdf?", "Delete report-4.pdf?");
    different_message("Merge branch release-2024 into main?", "Merge branch release-2025 into main?");
    different_message("Merge feature/login-v2?", "Merge feature/login-v3?");
    different_message("Invite alice@example.com to the team", "Invite bob@corp.example.io to the team");
    different_message("Open https://example.com/a, then confirm", "open https://example.org/b, then confirm");
    // Short hashes and object ids name a thing too, and so does a long hash
    // after a word naming what is decided on.
    different_message("Merge commit 3f9a2c1d7e?", "Merge commit a1b2c3d4e5?");
    different_message(
        "Deploy commit 3f9a2c1d7e0b4a5c6d7e8f9a0b1c2d3e4f5a6b7c?",
        "Deploy commit 0b4a5c6d7e8f9a0b1c2d3e4f5a6b7c3f9a2c1d7e?",
    );
    different_message(
        "Refund charge ch_3MtwBwLkdIwHu7ix28a3tqPa?",
        "Refund charge ch_1NirD82eZvKYlo2CIvbtLWuY",
    );
    different_message("Retry job job-8f2k3j4h5g", "Retry job job-ab12cd34ef56");
    // `may` next to a number is not a date unless the number follows it.
    different_message("Deploy build 77, may I?", "Deploy build 78, may I?");
    assert_eq!(normalize_message("Use deadbeef on s3"), "use deadbeef on s3");
}

#[test]
fn what_varies_without_changing_the_question_is_masked() {
    // Request ids, in their usual spellings.
    same_message("Deploy build 77 (request id 7f3k9x2m)?", "Deploy build 77 (request id q1w2e3r4)");
    same_message("Deploy build 77? req-id: 42", "Deploy build 77? req-id: 43");
    same_message("Deploy build 77 [requestId=abc123]", "Deploy build 77 [requestId=def456]");
    same_message("Deploy build 77 (req_8f2k3j4h5g6d)", "Deploy build 77 (req_0a9s8d7f6g5h)");
    same_message("Trace ID 4bf92f3577b34da6: approve?", "Trace ID 00f067aa0ba902b7: approve?");
    same_message("Approve with idempotency key k-1234?", "Approve with idempotency key k-9876?");
    // UUIDs.
    assert_eq!(
        normalize_message("Approve request 123e4567-e89b-12d3-a456-426614174000?"),
        "approve request <id>"
    );
    same_message(
        "Deploy build 77 for request 123E4567-E89B-12D3-A456-426614174000?",
        "Deploy build 77 for request 9f1c2d3e-0000-4abc-8def-0123456789ab",
    );
    // Timestamps.
    same_message("Deploy build 77 at 2025-03-05T12:30:00Z?", "Deploy build 77 at 2025-03-06T08:00:00Z?");
    same_message("Deploy build 77 (timestamp 1733059200)?", "Deploy build 77 (timestamp 1733062800)?");
    same_message("Deploy build 77 (ts=1733059200123)", "Deploy build 77 (ts=1733059999999)");
    // Nonces and long random tokens.
    same_message("Deploy build 77? nonce=8f2k3j4h5g6d7s8a", "Deploy build 77? nonce=q9w8e7r6t5y4u3i2");
    same_message(
        "Open https://auth.example.com/authorize?client=herald&state=a1b2c3d4e5",
        "Open https://auth.example.com/authorize?client=herald&state=z9y8x7w6v5",
    );
    same_message(
        "Approve upload 3f9a2c1d7e0b4a5c6d7e8f9a0b1c2d3e?",
        "Approve upload 0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e?",
    );
    // Retry counters.
    same_message("Retry attempt 2 of 5: deploy build 77?", "Retry attempt 3 of 5: deploy build 77?");
    assert_eq!(
        normalize_message("Deploy build 77 (request id 7f3k9x2m, attempt 2) at 2025-03-05T12:30:00Z?"),
        "deploy build 77 (request id <id>, attempt <n>) at <time>"
    );
}

#[test]
fn timestamps_and_dates_are_masked() {
    assert_eq!(normalize_message("Run the backup at 2025-03-05T12:30:00Z?"), "run the backup at <time>");
    for when in [
        "2025-03-05T12:30:00Z",
        "2025-03-05T12:30:00.123+02:00",
        "2025-03-05 12:30",
        "2025-03-05",
        "05/03/2025",
        "3/5/25",
        "5.3.2025",
        "March 5, 2025 at 3pm",
        "Mar. 5th",
        "5th of March 2025",
        "Wednesday, March 5",
        "Mon, Mar 5 at 3:15 PM UTC",
        "12:30",
        "7pm",
        "7 p.m.",
        "09:00 - 10:30",
    ] {
        assert_eq!(
            normalize_message(&format!("Book the meeting room for {when}?")),
            "book the meeting room for <time>",
            "{when}"
        );
    }
}

#[test]
fn month_names_alone_are_words() {
    assert_eq!(normalize_message("May I deploy?"), "may i deploy");
    assert_eq!(normalize_message("Archive the march report"), "archive the march report");
    assert_eq!(
        normalize_message("Dim the lights when the sun sets at 7pm"),
        "dim the lights when the sun sets at <time>"
    );
    assert_eq!(
        normalize_message("Close the blinds, the sun at 5pm is bright"),
        "close the blinds, the sun at <time> is bright"
    );
    assert_eq!(normalize_message("Remind me Friday at 9am"), "remind me <time>");
}

#[test]
fn emails_and_urls_are_kept() {
    assert_eq!(
        normalize_message("Invite Alice.Smith+ops@example.com?"),
        "invite alice.smith+ops@example.com"
    );
    assert_eq!(
        normalize_message("Open https://example.com/reports/2025?id=7 (or www.example.org/x)."),
        "open https://example.com/reports/2025?id=7 (or www.example.org/x)"
    );
}

#[test]
fn quoted_strings_keep_their_content() {
    assert_eq!(
        normalize_message("Delete the file \"Report 2024.PDF\"?"),
        "delete the file \"report 2024.pdf\""
    );
    different_message("Delete branch \"release-2024\"?", "Delete branch \"release-2025\"?");
    different_message("Delete 'report-3.pdf'?", "Delete 'report-4.pdf'?");
    // Quote styles do not matter, apostrophes are not quotes.
    same_message("Delete “release-2024”?", "Delete \"release-2024\"");
    same_message("Delete ‘draft 1’?", "Delete 'draft 1'");
    assert_eq!(normalize_message("Don't delete user's file 42"), "don't delete user's file 42");
    // An unclosed quote is just a character.
    assert_eq!(normalize_message("Say \"hello 42"), "say \"hello 42");
}

#[test]
fn different_questions_stay_different() {
    different_message("Delete the production database?", "Deploy to production?");
    different_message("Approve the refund?", "Approve the payment?");
    different_message("Enable feature flag dark-mode?", "Disable feature flag dark-mode?");
    different_message("Deploy to us-east-1?", "Deploy to eu-west-1?");
}

// --- canonical_schema ----------------------------------------------------------

const BASE_SCHEMA: &str = r#"{
  "type": "object",
  "title": "Deployment",
  "properties": {
    "environment": { "type": "string", "title": "Environment", "enum": ["staging", "production"] },
    "confirm": { "type": "boolean", "description": "Tick to confirm", "default": false },
    "replicas": { "type": "integer", "minimum": 1, "maximum": 10 }
  },
  "required": ["environment", "confirm"]
}"#;

#[test]
fn canonical_schema_is_compact_sorted_and_unannotated() {
    assert_eq!(
        canonical_schema(&schema(BASE_SCHEMA)),
        concat!(
            r#"{"properties":{"confirm":{"type":"boolean"},"#,
            r#""environment":{"enum":["production","staging"],"type":"string"},"#,
            r#""replicas":{"maximum":10,"minimum":1,"type":"integer"}},"#,
            r#""required":["confirm","environment"],"type":"object"}"#
        )
    );
}

#[test]
fn reordering_and_retitling_do_not_change_the_schema() {
    let reworded = r#"{
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "required": ["confirm", "environment"],
      "properties": {
        "replicas": { "maximum": 10.0, "minimum": 1, "type": "integer", "title": "How many?" },
        "confirm": { "default": true, "type": "boolean", "title": "Sure?" },
        "environment": { "enum": ["production", "staging"], "type": "string", "description": "Where to" }
      },
      "type": "object",
      "title": "Deploy now"
    }"#;
    assert_eq!(canonical_schema(&schema(BASE_SCHEMA)), canonical_schema(&schema(reworded)));
}

#[test]
fn field_changes_change_the_schema() {
    let base = canonical_schema(&schema(BASE_SCHEMA));
    let changed = [
        // a field added
        BASE_SCHEMA.replace(r#""replicas""#, r#""region": { "type": "string" }, "replicas""#),
        // a field removed
        BASE_SCHEMA
            .replace(r#""replicas": { "type": "integer", "minimum": 1, "maximum": 10 }"#, "")
            .replace(r#""default": false },"#, r#""default": false }"#),
        // a field retyped
        BASE_SCHEMA.replace(r#""replicas": { "type": "integer""#, r#""replicas": { "type": "string""#),
        // a field renamed
        BASE_SCHEMA.replace(r#""replicas""#, r#""instances""#),
        // a constraint changed
        BASE_SCHEMA.replace(r#""maximum": 10"#, r#""maximum": 100"#),
        // an option added
        BASE_SCHEMA.replace(r#"["staging", "production"]"#, r#"["staging", "production", "dev"]"#),
        // a field made optional
        BASE_SCHEMA.replace(r#"["environment", "confirm"]"#, r#"["environment"]"#),
    ];
    for json in &changed {
        assert_ne!(canonical_schema(&schema(json)), base, "{json}");
    }
}

#[test]
fn property_names_that_look_like_keywords_are_kept() {
    let with_title = json!({
        "type": "object",
        "properties": { "title": { "type": "string", "title": "Title" }, "description": { "type": "string" } }
    });
    assert_eq!(
        canonical_schema(&with_title),
        r#"{"properties":{"description":{"type":"string"},"title":{"type":"string"}},"type":"object"}"#
    );
}

#[test]
fn titled_enums_keep_values_and_lose_labels() {
    let a = json!({ "type": "string", "oneOf": [
        { "const": "a", "title": "Apple" }, { "const": "b", "title": "Banana" } ] });
    let b = json!({ "type": "string", "oneOf": [
        { "title": "Banana!", "const": "b" }, { "const": "a", "title": "Apfel" } ] });
    let c = json!({ "type": "string", "oneOf": [ { "const": "a" }, { "const": "c" } ] });
    assert_eq!(canonical_schema(&a), canonical_schema(&b));
    assert_ne!(canonical_schema(&a), canonical_schema(&c));
    let legacy = json!({ "type": "string", "enum": ["x", "y"], "enumNames": ["Ex", "Why"] });
    assert_eq!(canonical_schema(&legacy), r#"{"enum":["x","y"],"type":"string"}"#);
    let multi = json!({ "type": "array", "items": { "anyOf": [ { "const": "x", "title": "X" } ] } });
    assert_eq!(canonical_schema(&multi), r#"{"items":{"anyOf":[{"const":"x"}]},"type":"array"}"#);
}

#[test]
fn strings_are_escaped() {
    let value = json!({ "type": "string", "enum": ["a\"b", "ü\n"] });
    assert_eq!(canonical_schema(&value), r#"{"enum":["a\"b","ü\n"],"type":"string"}"#);
}

// --- fingerprint_text ----------------------------------------------------------

#[test]
fn fingerprint_text_is_length_prefixed() {
    let schema = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } });
    assert_eq!(
        fingerprint_text("deploy-bot", Some("deploy"), "Deploy build 42?", Some(&schema)),
        "herald-fingerprint-v2\nserver:10:deploy-bot\ntool:6:deploy\nmessage:15:deploy build 42\n\
         schema:56:{\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"type\":\"object\"}"
    );
    assert_eq!(
        fingerprint_text("s", None, "Open the docs", None),
        "herald-fingerprint-v2\nserver:1:s\ntool:-\nmessage:13:open the docs\nschema:-"
    );
}

#[test]
fn trivial_rewording_keeps_the_fingerprint() {
    let first = schema(BASE_SCHEMA);
    let again = json!({
        "type": "object",
        "required": ["confirm", "environment"],
        "properties": {
            "replicas": { "type": "integer", "minimum": 1, "maximum": 10 },
            "environment": { "type": "string", "enum": ["production", "staging"], "title": "Env" },
            "confirm": { "type": "boolean" }
        }
    });
    assert_eq!(
        fingerprint_text(
            "github",
            Some("deploy"),
            "Deploy build a3f9c2e1d7 to production at 2025-03-05T12:30:00Z (request id 7f3k9x2m)?",
            Some(&first)
        ),
        fingerprint_text(
            "github",
            Some("deploy"),
            "deploy  build A3F9C2E1D7 to PRODUCTION at 2025-03-06T08:00:00Z (request id q1w2e3r4)",
            Some(&again)
        ),
    );
}

#[test]
fn anything_else_changes_the_fingerprint() {
    let schema = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } });
    let other_schema = json!({ "type": "object", "properties": { "ok": { "type": "string" } } });
    let base = fingerprint_text("github", Some("deploy"), "Deploy to production?", Some(&schema));
    let variants = [
        fingerprint_text("github", Some("deploy"), "Delete the production database?", Some(&schema)),
        fingerprint_text("github", Some("rollback"), "Deploy to production?", Some(&schema)),
        fingerprint_text("gitlab", Some("deploy"), "Deploy to production?", Some(&schema)),
        fingerprint_text("github", Some("deploy"), "Deploy to production?", Some(&other_schema)),
        fingerprint_text("github", Some("deploy"), "Deploy to production?", None),
        fingerprint_text("github", None, "Deploy to production?", Some(&schema)),
        fingerprint_text("github", Some(""), "Deploy to production?", Some(&schema)),
    ];
    for variant in &variants {
        assert_ne!(*variant, base);
    }
    for (i, a) in variants.iter().enumerate() {
        for b in &variants[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn parts_cannot_run_into_each_other() {
    // Without length prefixes these two would concatenate alike.
    assert_ne!(fingerprint_text("a\ntool:1:b", None, "m", None), fingerprint_text("a", Some("b"), "m", None));
    assert_ne!(fingerprint_text("ab", Some("c"), "m", None), fingerprint_text("a", Some("bc"), "m", None));
}

/// Decline memory: a declined question and the one after it, as the gateway
/// would fingerprint them.
#[test]
fn a_decline_covers_the_same_question_only() {
    let schema = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } });
    let fp = |message: &str| fingerprint_text("deploy-bot", Some("deploy"), message, Some(&schema));
    let declined = fp("Deploy build 77 to production? (request 123e4567-e89b-12d3-a456-426614174000)");
    // Asked again: same text, another request id, other case and spacing.
    assert_eq!(declined, fp("Deploy build 77 to production? (request 123e4567-e89b-12d3-a456-426614174000)"));
    assert_eq!(
        declined,
        fp("deploy  build 77 to PRODUCTION?  (Request 9f1c2d3e-0000-4abc-8def-0123456789ab)")
    );
    // Another build is another question.
    assert_ne!(declined, fp("Deploy build 78 to production? (request 123e4567-e89b-12d3-a456-426614174000)"));
    assert_ne!(fp("Refund 10 €?"), fp("Refund 1000 €?"));
    assert_ne!(fp("Delete a.txt?"), fp("Delete b.txt?"));
    assert_eq!(
        fp("Approve? nonce=8f2k3j4h5g6d7s8a at 2025-03-05T12:30:00Z"),
        fp("approve? nonce=q9w8e7r6t5y4u3i2 at 2025-03-06T09:00:00Z")
    );
}
