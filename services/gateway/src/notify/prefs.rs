//! Notification preferences: a person's own choices over their
//! organisation's defaults over Herald's. One document shape for both, every
//! value optional ("not set: use the next one down"), validated field by field.

use jiff::civil::Time;
use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::problem::InvalidField;

/// Built-in defaults (issue 16): notify by e-mail 20 s after a question
/// arrives while the person is not looking, remind at 80 % of its time.
pub const DEFAULT_DELAY_SECS: u32 = 20;
pub const DEFAULT_REMINDER_PERCENT: u8 = 80;
pub const MAX_DELAY_SECS: u32 = 3600;

/// Preferences as a person or an organisation stores them; `None` defers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrefsDoc {
    #[serde(default)]
    pub email: Option<bool>,
    /// Push to the browsers the person turned it on in.
    #[serde(default)]
    pub push: Option<bool>,
    #[serde(default)]
    pub delay_secs: Option<u32>,
    /// 0: no reminder; otherwise 10–95 (% of the question's time).
    #[serde(default)]
    pub reminder_percent: Option<u8>,
    #[serde(default)]
    pub quiet_hours: Option<QuietHours>,
}

/// A daily window, in the person's own time zone, when nothing is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuietHours {
    /// `HH:MM`, 24-hour clock.
    pub start: String,
    pub end: String,
    /// An IANA time zone name, such as `Europe/Berlin`.
    pub time_zone: String,
}

/// The preferences in force for one person in one organisation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prefs {
    pub email: bool,
    pub push: bool,
    pub delay_secs: u32,
    pub reminder_percent: u8,
    pub quiet_hours: Option<QuietHours>,
}

impl Prefs {
    /// The person's choices over the organisation's over Herald's.
    pub fn merged(own: &PrefsDoc, org: &PrefsDoc) -> Prefs {
        Prefs {
            email: own.email.or(org.email).unwrap_or(true),
            push: own.push.or(org.push).unwrap_or(true),
            delay_secs: own.delay_secs.or(org.delay_secs).unwrap_or(DEFAULT_DELAY_SECS),
            reminder_percent: own
                .reminder_percent
                .or(org.reminder_percent)
                .unwrap_or(DEFAULT_REMINDER_PERCENT),
            quiet_hours: own.quiet_hours.clone().or_else(|| org.quiet_hours.clone()),
        }
    }

    /// When a notification due `at` may be sent: `at` itself, or the end of
    /// the quiet hours it falls in.
    pub fn send_at(&self, at: OffsetDateTime) -> OffsetDateTime {
        match &self.quiet_hours {
            Some(quiet) => quiet.end_of_quiet(at).unwrap_or(at),
            None => at,
        }
    }
}

impl QuietHours {
    /// If `at` falls inside the window, the moment the window ends.
    pub fn end_of_quiet(&self, at: OffsetDateTime) -> Option<OffsetDateTime> {
        let (start, end, tz) =
            (parse_time(&self.start)?, parse_time(&self.end)?, TimeZone::get(&self.time_zone).ok()?);
        let instant = jiff::Timestamp::from_second(at.unix_timestamp()).ok()?;
        let local = instant.to_zoned(tz.clone());
        let now = local.time();
        let inside = if start <= end { now >= start && now < end } else { now >= start || now < end };
        if !inside || start == end {
            return None;
        }
        // The window ends today, or tomorrow when it spans midnight and we are before it.
        let mut day = local.date();
        if now >= end {
            day = day.tomorrow().ok()?;
        }
        let ends = day.to_datetime(end).to_zoned(tz).ok()?;
        OffsetDateTime::from_unix_timestamp(ends.timestamp().as_second()).ok()
    }
}

fn parse_time(given: &str) -> Option<Time> {
    let (h, m) = given.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    Time::new(h.parse().ok()?, m.parse().ok()?, 0, 0).ok()
}

impl PrefsDoc {
    /// Every problem with the document, by field.
    pub fn check(&self) -> Result<(), Vec<InvalidField>> {
        let mut errors = vec![];
        if let Some(delay) = self.delay_secs
            && delay > MAX_DELAY_SECS
        {
            errors.push(InvalidField::new(
                "delay_secs",
                format!("must be between 0 and {MAX_DELAY_SECS} seconds"),
            ));
        }
        if let Some(percent) = self.reminder_percent
            && percent != 0
            && !(10..=95).contains(&percent)
        {
            errors
                .push(InvalidField::new("reminder_percent", "must be 0 (no reminder) or between 10 and 95"));
        }
        if let Some(quiet) = &self.quiet_hours {
            for (field, value) in [("quiet_hours.start", &quiet.start), ("quiet_hours.end", &quiet.end)] {
                if parse_time(value).is_none() {
                    errors.push(InvalidField::new(field, "must be a time of day as HH:MM (24-hour clock)"));
                }
            }
            if quiet.start == quiet.end && parse_time(&quiet.start).is_some() {
                errors.push(InvalidField::new("quiet_hours.end", "must differ from the start"));
            }
            if TimeZone::get(&quiet.time_zone).is_err() {
                errors.push(InvalidField::new(
                    "quiet_hours.time_zone",
                    "must be an IANA time zone name, such as Europe/Berlin or America/New_York",
                ));
            }
        }
        if errors.is_empty() { Ok(()) } else { Err(errors) }
    }

    /// A stored document; one that no longer parses counts as empty.
    pub fn from_stored(stored: Option<serde_json::Value>) -> PrefsDoc {
        stored.and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn quiet(start: &str, end: &str, tz: &str) -> QuietHours {
        QuietHours { start: start.into(), end: end.into(), time_zone: tz.into() }
    }

    #[test]
    fn a_persons_choice_wins_over_the_orgs_which_wins_over_herald() {
        let org = PrefsDoc { delay_secs: Some(60), email: Some(false), ..Default::default() };
        let own = PrefsDoc { email: Some(true), ..Default::default() };
        let p = Prefs::merged(&own, &org);
        assert!(p.email);
        assert_eq!(p.delay_secs, 60);
        assert_eq!(p.reminder_percent, DEFAULT_REMINDER_PERCENT);
        assert_eq!(Prefs::merged(&PrefsDoc::default(), &PrefsDoc::default()).delay_secs, DEFAULT_DELAY_SECS);
    }

    #[test]
    fn quiet_hours_across_midnight_end_the_next_morning_in_the_persons_zone() {
        let q = quiet("22:00", "07:00", "Europe/Berlin");
        // 23:30 in Berlin (winter, UTC+1) is 22:30 UTC; quiet until 07:00 Berlin = 06:00 UTC.
        assert_eq!(q.end_of_quiet(datetime!(2026-12-01 22:30 UTC)), Some(datetime!(2026-12-02 06:00 UTC)));
        // 03:00 Berlin: the same morning.
        assert_eq!(q.end_of_quiet(datetime!(2026-12-02 02:00 UTC)), Some(datetime!(2026-12-02 06:00 UTC)));
        // Noon: not quiet.
        assert_eq!(q.end_of_quiet(datetime!(2026-12-02 11:00 UTC)), None);
        // Summer time: 07:00 Berlin is 05:00 UTC.
        assert_eq!(q.end_of_quiet(datetime!(2026-07-01 01:00 UTC)), Some(datetime!(2026-07-01 05:00 UTC)));
    }

    #[test]
    fn quiet_hours_within_a_day() {
        let q = quiet("12:00", "13:30", "America/New_York");
        assert_eq!(q.end_of_quiet(datetime!(2026-12-01 17:15 UTC)), Some(datetime!(2026-12-01 18:30 UTC)));
        assert_eq!(q.end_of_quiet(datetime!(2026-12-01 18:30 UTC)), None);
    }

    #[test]
    fn bad_values_are_named_by_field() {
        let doc = PrefsDoc {
            delay_secs: Some(99_999),
            reminder_percent: Some(5),
            quiet_hours: Some(quiet("25:00", "7:00", "Mars/Olympus")),
            email: None,
            push: None,
        };
        let fields: Vec<String> = doc.check().unwrap_err().into_iter().map(|e| e.field).collect();
        assert_eq!(
            fields,
            [
                "delay_secs",
                "reminder_percent",
                "quiet_hours.start",
                "quiet_hours.end",
                "quiet_hours.time_zone"
            ]
        );
        assert!(PrefsDoc { reminder_percent: Some(0), ..Default::default() }.check().is_ok());
        assert!(
            PrefsDoc { quiet_hours: Some(quiet("09:00", "09:00", "UTC")), ..Default::default() }
                .check()
                .is_err()
        );
    }
}
