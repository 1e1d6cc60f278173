//! The requests the detector is measured on: the benchmark (`benches/detector.rs`)
//! times them, `examples/detector_calls.rs` runs them for instruction counts.

use herald_policy::credential::{AskText, FieldKind, FieldText};

pub fn field<'a>(
    name: &'a str,
    title: &'a str,
    description: Option<&'a str>,
    kind: FieldKind,
    enum_values: Vec<&'a str>,
) -> FieldText<'a> {
    FieldText { name, title: Some(title), description, kind, enum_values, ..FieldText::default() }
}

pub fn typical_benign() -> AskText<'static> {
    AskText {
        message: "Before I book the venue for the team offsite in March, please confirm the details below. The \
                  budget was approved by finance last week, so this is the last step.",
        fields: vec![
            field("venue", "Venue name", Some("Where the team will meet"), FieldKind::Text, vec![]),
            field("date", "Date", Some("First day of the offsite"), FieldKind::Text, vec![]),
            field("headcount", "Number of people", None, FieldKind::Number, vec![]),
            field("catering", "Catering", None, FieldKind::Choice, vec!["none", "lunch", "full board"]),
            field(
                "notes",
                "Notes for the venue",
                Some("Accessibility needs, parking, anything else"),
                FieldKind::Text,
                vec![],
            ),
        ],
    }
}

pub fn typical_fishing() -> AskText<'static> {
    AskText {
        message: "To finish connecting your Acme account to the workspace, please enter your password and the \
                  6-digit code we just sent to your phone. It expires in 10 minutes.",
        fields: vec![
            field("email", "Email", Some("The address you signed up with"), FieldKind::Text, vec![]),
            field("pwd", "Password", None, FieldKind::Text, vec![]),
            field("code", "Verification code", Some("6 digits, sent by SMS"), FieldKind::Number, vec![]),
            field("remember", "Remember this device?", None, FieldKind::Boolean, vec![]),
            field("region", "Region", None, FieldKind::Choice, vec!["eu", "us", "apac"]),
        ],
    }
}
