//! What each eliciting tool asks and what it makes of the answer.
//!
//! Everything here is pure: the questions are built as plain MCP elicitation parameters and the
//! answers are read from an [`ElicitResult`], so the same code serves a legacy session (where the
//! question is pushed as `elicitation/create`) and a 2026-07-28 call (where it is returned inside an
//! `input_required` result).

use rmcp::model::{
    CallToolResult, ContentBlock, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The time slots `book_table` offers.
pub const TIME_SLOTS: [&str; 7] = ["18:00", "18:30", "19:00", "19:30", "20:00", "20:30", "21:00"];
/// The slot pre-selected in the booking form.
pub const DEFAULT_TIME: &str = "19:00";
/// The party size pre-filled in the booking form.
pub const DEFAULT_PARTY_SIZE: i64 = 2;
/// The dietary options of the booking form's multi-select.
pub const DIETARY_OPTIONS: [&str; 4] = ["vegetarian", "vegan", "gluten-free", "none"];
/// The regions `choose_region` offers, as (value, title).
pub const REGIONS: [(&str, &str); 4] = [
    ("us-east", "US East (N. Virginia)"),
    ("us-west", "US West (Oregon)"),
    ("eu-west", "EU West (Ireland)"),
    ("ap-southeast", "Asia Pacific (Singapore)"),
];
/// Where `connect_account` sends the user.
pub const CONNECT_BASE_URL: &str = "https://auth.example.com/connect";

/// The shortest and longest wait `ask_then_withdraw` accepts, in seconds.
pub const WITHDRAW_SECONDS: std::ops::RangeInclusive<u64> = 1..=30;
/// What `ask_then_withdraw` returns when nobody answered in time.
pub const WITHDRAWN_TEXT: &str = "The question was withdrawn";

const NOTE_MAX_LENGTH: usize = 200;
const NAME_MAX_LENGTH: usize = 100;
const NOTES_MAX_LENGTH: usize = 500;

/// Where a deployment goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum Environment {
    Staging,
    Production,
}

impl Environment {
    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Staging => "staging",
            Environment::Production => "production",
        }
    }
}

/// Arguments of `deploy`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DeployArgs {
    /// The service to deploy, e.g. "billing-api".
    pub service: String,
    /// The target environment.
    pub environment: Environment,
}

/// Arguments of `book_table`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BookTableArgs {
    /// The restaurant to book at.
    pub restaurant: String,
}

/// Arguments of `connect_account`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConnectAccountArgs {
    /// The account provider to connect, e.g. "github".
    pub provider: String,
}

/// Arguments of `ask_then_withdraw`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AskThenWithdrawArgs {
    /// How long the question stays open before the server withdraws it, in seconds (1 to 30).
    #[schemars(range(min = 1, max = 30))]
    pub seconds: u64,
}

/// Arguments of `echo`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// The text to return.
    pub text: String,
}

fn form(message: String, schema: Value) -> ElicitRequestParams {
    let requested_schema: ElicitationSchema =
        serde_json::from_value(schema).expect("the demo forms stay within the elicitation schema subset");
    ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema }
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

/// A tool error the caller can read (`isError: true`), for answers that broke the contract.
pub fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

fn content(result: &ElicitResult) -> Result<&Map<String, Value>, String> {
    match &result.content {
        Some(Value::Object(map)) => Ok(map),
        Some(_) => Err("content is not an object".into()),
        None => Err("an accepted form answer must carry content".into()),
    }
}

fn invalid(reason: impl std::fmt::Display) -> CallToolResult {
    tool_error(format!("Invalid elicitation response: {reason}"))
}

fn optional_string<'a>(
    map: &'a Map<String, Value>,
    field: &str,
    max_chars: usize,
) -> Result<Option<&'a str>, String> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() <= max_chars => Ok(Some(s)),
        Some(Value::String(_)) => Err(format!("{field} is longer than {max_chars} characters")),
        Some(_) => Err(format!("{field} must be a string")),
    }
}

fn required_string<'a>(
    map: &'a Map<String, Value>,
    field: &str,
    max_chars: usize,
) -> Result<&'a str, String> {
    optional_string(map, field, max_chars)?.ok_or_else(|| format!("{field} is required"))
}

fn integer(value: &Value) -> Option<i64> {
    value.as_i64().or_else(|| value.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 1e15).map(|f| f as i64))
}

// ---------------------------------------------------------------------------------------------
// deploy

pub fn deploy_form(args: &DeployArgs) -> ElicitRequestParams {
    form(
        format!("Deploy {} to {}?", args.service, args.environment.as_str()),
        json!({
            "type": "object",
            "properties": {
                "confirm": {
                    "type": "boolean",
                    "title": "Confirm deploy",
                    "description": "Tick to go ahead with the deployment",
                    "default": false
                },
                "note": {
                    "type": "string",
                    "title": "Note",
                    "description": "Optional note for the deployment log",
                    "maxLength": NOTE_MAX_LENGTH
                }
            },
            "required": ["confirm"]
        }),
    )
}

pub fn deploy_outcome(args: &DeployArgs, result: &ElicitResult) -> CallToolResult {
    match result.action {
        ElicitationAction::Accept => {
            let checked = content(result).and_then(|map| {
                optional_string(map, "note", NOTE_MAX_LENGTH)?;
                match map.get("confirm") {
                    Some(Value::Bool(confirm)) => Ok(*confirm),
                    Some(_) => Err("confirm must be a boolean".to_string()),
                    None => Err("confirm is required".to_string()),
                }
            });
            match checked {
                Ok(true) => text(format!("Deployed {} to {}", args.service, args.environment.as_str())),
                Ok(false) => text("Deployment cancelled: not confirmed"),
                Err(reason) => invalid(reason),
            }
        }
        ElicitationAction::Decline => text("Deployment declined by the user"),
        _ => text("Deployment cancelled by the user"),
    }
}

// ---------------------------------------------------------------------------------------------
// book_table

pub fn booking_form(args: &BookTableArgs) -> ElicitRequestParams {
    form(
        format!("Book a table at {}", args.restaurant),
        json!({
            "type": "object",
            "properties": {
                "date": {
                    "type": "string",
                    "title": "Date",
                    "description": "Day of the reservation",
                    "format": "date"
                },
                "time": {
                    "type": "string",
                    "title": "Time",
                    "enum": TIME_SLOTS,
                    "default": DEFAULT_TIME
                },
                "party_size": {
                    "type": "integer",
                    "title": "Party size",
                    "minimum": 1,
                    "maximum": 12,
                    "default": DEFAULT_PARTY_SIZE
                },
                "name": {
                    "type": "string",
                    "title": "Name",
                    "description": "Name the table is booked under",
                    "minLength": 1,
                    "maxLength": NAME_MAX_LENGTH
                },
                "email": {
                    "type": "string",
                    "title": "Email",
                    "description": "Where to send the confirmation",
                    "format": "email"
                },
                "dietary": {
                    "type": "array",
                    "title": "Dietary requirements",
                    "items": { "type": "string", "enum": DIETARY_OPTIONS },
                    "default": []
                },
                "notes": {
                    "type": "string",
                    "title": "Notes",
                    "description": "Anything the restaurant should know",
                    "maxLength": NOTES_MAX_LENGTH
                }
            },
            "required": ["date", "name"]
        }),
    )
}

fn is_date(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = &s[range];
        part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok()).flatten()
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.chars().any(char::is_whitespace)
}

/// Reads an accepted booking, filling in the form's defaults for fields the answer left out.
pub fn booking_from(restaurant: &str, map: &Map<String, Value>) -> Result<Value, String> {
    let date = required_string(map, "date", 10)?;
    if !is_date(date) {
        return Err(format!("date {date:?} is not a calendar date (YYYY-MM-DD)"));
    }
    let time = optional_string(map, "time", 5)?.unwrap_or(DEFAULT_TIME);
    if !TIME_SLOTS.contains(&time) {
        return Err(format!("time {time:?} is not one of the offered slots"));
    }
    let party_size = match map.get("party_size") {
        None | Some(Value::Null) => DEFAULT_PARTY_SIZE,
        Some(value) => match integer(value) {
            Some(n) if (1..=12).contains(&n) => n,
            _ => return Err("party_size must be an integer from 1 to 12".into()),
        },
    };
    let name = required_string(map, "name", NAME_MAX_LENGTH)?;
    if name.trim().is_empty() {
        return Err("name must not be empty".into());
    }
    let email = optional_string(map, "email", 254)?;
    if let Some(email) = email
        && !is_email(email)
    {
        return Err(format!("email {email:?} is not an email address"));
    }
    let dietary: Vec<&str> = match map.get("dietary") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut chosen = Vec::with_capacity(items.len());
            for item in items {
                match item.as_str() {
                    Some(option) if DIETARY_OPTIONS.contains(&option) => {
                        if !chosen.contains(&option) {
                            chosen.push(option);
                        }
                    }
                    _ => return Err(format!("dietary option {item} is not offered")),
                }
            }
            chosen
        }
        Some(_) => return Err("dietary must be an array of strings".into()),
    };
    let notes = optional_string(map, "notes", NOTES_MAX_LENGTH)?;

    let mut booking = Map::new();
    booking.insert("restaurant".into(), json!(restaurant));
    booking.insert("date".into(), json!(date));
    booking.insert("time".into(), json!(time));
    booking.insert("party_size".into(), json!(party_size));
    booking.insert("name".into(), json!(name));
    if let Some(email) = email {
        booking.insert("email".into(), json!(email));
    }
    booking.insert("dietary".into(), json!(dietary));
    if let Some(notes) = notes {
        booking.insert("notes".into(), json!(notes));
    }
    Ok(Value::Object(booking))
}

pub fn booking_outcome(args: &BookTableArgs, result: &ElicitResult) -> CallToolResult {
    match result.action {
        ElicitationAction::Accept => {
            match content(result).and_then(|map| booking_from(&args.restaurant, map)) {
                Ok(booking) => {
                    let mut result = text(booking.to_string());
                    result.structured_content = Some(booking);
                    result
                }
                Err(reason) => invalid(reason),
            }
        }
        ElicitationAction::Decline => text("Booking declined by the user"),
        _ => text("Booking cancelled by the user"),
    }
}

// ---------------------------------------------------------------------------------------------
// choose_region

pub fn region_form() -> ElicitRequestParams {
    let one_of: Vec<Value> =
        REGIONS.iter().map(|(value, title)| json!({ "const": value, "title": title })).collect();
    form(
        "Which region should the new resources live in?".into(),
        json!({
            "type": "object",
            "properties": {
                "region": {
                    "type": "string",
                    "title": "Region",
                    "description": "Where the resources are created",
                    "oneOf": one_of
                }
            },
            "required": ["region"]
        }),
    )
}

pub fn region_outcome(result: &ElicitResult) -> CallToolResult {
    match result.action {
        ElicitationAction::Accept => {
            let region = content(result).and_then(|map| match map.get("region") {
                Some(Value::String(region)) => REGIONS
                    .iter()
                    .find(|(value, _)| value == region)
                    .ok_or(format!("unknown region {region:?}")),
                Some(_) => Err("region must be a string".into()),
                None => Err("region is required".into()),
            });
            match region {
                Ok((value, title)) => {
                    let mut result = text(format!("Selected region: {value} ({title})"));
                    result.structured_content = Some(json!({ "region": value, "title": title }));
                    result
                }
                Err(reason) => invalid(reason),
            }
        }
        ElicitationAction::Decline => text("Region selection declined by the user"),
        _ => text("Region selection cancelled by the user"),
    }
}

// ---------------------------------------------------------------------------------------------
// connect_account

pub fn connect_url(provider: &str) -> String {
    let mut url = url::Url::parse(CONNECT_BASE_URL).expect("constant URL");
    url.query_pairs_mut().append_pair("provider", provider);
    url.into()
}

/// `elicitation_id` is empty on 2026-07-28, which dropped the field.
pub fn connect_request(args: &ConnectAccountArgs, elicitation_id: String) -> ElicitRequestParams {
    ElicitRequestParams::UrlElicitationParams {
        meta: None,
        message: format!("Open the {} sign-in page to connect your account.", args.provider),
        url: connect_url(&args.provider),
        elicitation_id,
    }
}

pub fn connect_outcome(args: &ConnectAccountArgs, result: &ElicitResult) -> CallToolResult {
    match result.action {
        ElicitationAction::Accept => {
            let url = connect_url(&args.provider);
            let mut result = text(format!("The user agreed to open {url} to connect {}", args.provider));
            result.structured_content =
                Some(json!({ "provider": args.provider, "url": url, "agreed_to_open": true }));
            result
        }
        ElicitationAction::Decline => text(format!("Connecting {} was declined by the user", args.provider)),
        _ => text(format!("Connecting {} was cancelled by the user", args.provider)),
    }
}

// ---------------------------------------------------------------------------------------------
// ask_then_withdraw

pub fn withdraw_form(seconds: u64) -> ElicitRequestParams {
    form(
        format!("Still there? This question is withdrawn if it is not answered within {seconds} s."),
        json!({
            "type": "object",
            "properties": {
                "reply": {
                    "type": "string",
                    "title": "Reply",
                    "description": "Anything, to show you were there",
                    "maxLength": NOTE_MAX_LENGTH
                }
            }
        }),
    )
}

/// `None`: the question was withdrawn unanswered.
pub fn withdraw_outcome(result: Option<&ElicitResult>) -> CallToolResult {
    let Some(result) = result else { return text(WITHDRAWN_TEXT) };
    // The wire name: accept, decline or cancel.
    let action = serde_json::to_value(&result.action).ok();
    let action = action.as_ref().and_then(Value::as_str).unwrap_or("unknown");
    text(format!("Answered: {action}"))
}

// ---------------------------------------------------------------------------------------------
// fish_for_password

pub fn password_form() -> ElicitRequestParams {
    form(
        "Please enter your account password to continue.".into(),
        json!({
            "type": "object",
            "properties": {
                "password": {
                    "type": "string",
                    "title": "Password",
                    "description": "Your account password",
                    "minLength": 1
                }
            },
            "required": ["password"]
        }),
    )
}

pub fn password_outcome(result: &ElicitResult) -> CallToolResult {
    match result.action {
        ElicitationAction::Accept => {
            match content(result).and_then(|map| required_string(map, "password", 1024)) {
                // Never echo what was typed.
                Ok(password) => text(format!("Password received ({} characters)", password.chars().count())),
                Err(reason) => invalid(reason),
            }
        }
        ElicitationAction::Decline => text("Password request declined by the user"),
        _ => text("Password request cancelled by the user"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(content: Value) -> ElicitResult {
        ElicitResult::new(ElicitationAction::Accept).with_content(content)
    }

    fn text_of(result: &CallToolResult) -> &str {
        &result.content[0].as_text().expect("text content").text
    }

    fn wire(params: &ElicitRequestParams) -> Value {
        serde_json::to_value(params).unwrap()
    }

    #[test]
    fn forms_survive_the_typed_schema_unchanged() {
        // rmcp's typed schema drops keywords it does not know; every keyword used here must survive.
        let args = BookTableArgs { restaurant: "Chez Ferris".into() };
        let booking = wire(&booking_form(&args));
        assert_eq!(booking["mode"], "form");
        let properties = &booking["requestedSchema"]["properties"];
        let names: Vec<&str> = properties.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(names, ["date", "time", "party_size", "name", "email", "dietary", "notes"]);
        assert_eq!(properties["date"]["format"], "date");
        assert_eq!(properties["time"]["default"], "19:00");
        assert_eq!(properties["time"]["enum"].as_array().unwrap().len(), TIME_SLOTS.len());
        assert_eq!(
            properties["party_size"],
            json!({"type":"integer","title":"Party size","minimum":1,"maximum":12,"default":2})
        );
        assert_eq!(properties["name"]["minLength"], 1);
        assert_eq!(properties["email"]["format"], "email");
        assert_eq!(properties["dietary"]["items"]["enum"], json!(DIETARY_OPTIONS));
        assert_eq!(properties["dietary"]["default"], json!([]));
        assert_eq!(booking["requestedSchema"]["required"], json!(["date", "name"]));

        let deploy =
            wire(&deploy_form(&DeployArgs { service: "api".into(), environment: Environment::Production }));
        assert_eq!(deploy["message"], "Deploy api to production?");
        assert_eq!(deploy["requestedSchema"]["properties"]["confirm"]["title"], "Confirm deploy");
        assert_eq!(deploy["requestedSchema"]["properties"]["note"]["maxLength"], 200);

        let region = wire(&region_form());
        let one_of = region["requestedSchema"]["properties"]["region"]["oneOf"].as_array().unwrap();
        assert_eq!(one_of.len(), REGIONS.len());
        assert_eq!(one_of[0], json!({"const": "us-east", "title": "US East (N. Virginia)"}));
    }

    #[test]
    fn deploy_answers_map_to_their_texts() {
        let args = DeployArgs { service: "api".into(), environment: Environment::Staging };
        assert_eq!(
            text_of(&deploy_outcome(&args, &accept(json!({"confirm": true})))),
            "Deployed api to staging"
        );
        assert_eq!(
            text_of(&deploy_outcome(&args, &accept(json!({"confirm": false})))),
            "Deployment cancelled: not confirmed"
        );
        let declined = deploy_outcome(&args, &ElicitResult::new(ElicitationAction::Decline));
        assert_eq!(text_of(&declined), "Deployment declined by the user");
        assert_ne!(declined.is_error, Some(true));
        let cancelled = deploy_outcome(&args, &ElicitResult::new(ElicitationAction::Cancel));
        assert_eq!(text_of(&cancelled), "Deployment cancelled by the user");
        assert_ne!(cancelled.is_error, Some(true));
        let broken = deploy_outcome(&args, &accept(json!({"confirm": "yes"})));
        assert_eq!(broken.is_error, Some(true));
        let long_note = deploy_outcome(&args, &accept(json!({"confirm": true, "note": "x".repeat(201)})));
        assert_eq!(long_note.is_error, Some(true));
    }

    #[test]
    fn bookings_take_defaults_and_reject_bad_fields() {
        let booking = booking_from(
            "Chez Ferris",
            json!({"date": "2027-02-28", "name": "Ada", "email": "ada@example.com"}).as_object().unwrap(),
        )
        .unwrap();
        assert_eq!(
            booking,
            json!({"restaurant":"Chez Ferris","date":"2027-02-28","time":"19:00","party_size":2,
                   "name":"Ada","email":"ada@example.com","dietary":[]})
        );
        for bad in [
            json!({"date": "2027-02-30", "name": "Ada"}),
            json!({"date": "tomorrow", "name": "Ada"}),
            json!({"date": "2027-02-01"}),
            json!({"date": "2027-02-01", "name": ""}),
            json!({"date": "2027-02-01", "name": "Ada", "party_size": 13}),
            json!({"date": "2027-02-01", "name": "Ada", "time": "23:00"}),
            json!({"date": "2027-02-01", "name": "Ada", "email": "nope"}),
            json!({"date": "2027-02-01", "name": "Ada", "dietary": ["carnivore"]}),
        ] {
            assert!(booking_from("x", bad.as_object().unwrap()).is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn dates_are_calendar_dates() {
        assert!(is_date("2028-02-29"));
        assert!(!is_date("2027-02-29"));
        assert!(!is_date("2027-13-01"));
        assert!(!is_date("2027-1-01"));
        assert!(!is_date("+027-01-01"));
    }

    #[test]
    fn the_connect_url_encodes_the_provider() {
        assert_eq!(connect_url("git hub&x=1"), "https://auth.example.com/connect?provider=git+hub%26x%3D1");
    }

    #[test]
    fn the_password_is_never_echoed() {
        let result = password_outcome(&accept(json!({"password": "hunter2"})));
        assert_eq!(text_of(&result), "Password received (7 characters)");
    }
}
