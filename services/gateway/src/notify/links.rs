//! One-click answer links for e-mail: for a question that is a single yes/no
//! or a single choice, the mail carries one link per answer (and one to
//! decline). Each link is signed with a key derived from the instance key,
//! bound to its person and question, and expires with the question; following
//! it only shows a confirmation page (mail scanners that fetch links answer
//! nothing), and the confirmation is the answer, first-answer-wins as any
//! other: once the question has ended, every link of it is spent.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use herald_mcp::ElicitAction;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use super::content::first_words;
use crate::crypto::Keys;
use crate::storage::Elicitation;
use herald_mcp::FieldKind;

/// A choice question gets links only up to this many options.
const MAX_CHOICES: usize = 8;
/// A token longer than this is not one of Herald's.
const MAX_TOKEN_LEN: usize = 2048;

/// What an answer link stands for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerLink {
    /// The question.
    pub q: Uuid,
    /// Its person.
    pub u: Uuid,
    /// `accept` with the value `v` for the form's one field, or `decline`.
    pub a: ElicitAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v: Option<Value>,
    /// Expiry, Unix seconds: the question's deadline.
    pub e: i64,
}

/// Why a link is not usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadLink {
    /// Not signed by this Herald, altered, or not a link at all.
    Forged,
    /// Past the question's deadline.
    Expired,
}

impl AnswerLink {
    /// The content this answer gives the form, if it accepts.
    pub fn content(&self) -> Option<Value> {
        match (&self.f, &self.v) {
            (Some(field), Some(value)) if self.a == ElicitAction::Accept => {
                Some(serde_json::json!({ field.clone(): value.clone() }))
            }
            _ => None,
        }
    }

    pub fn seal(&self, keys: &Keys) -> String {
        let payload = serde_json::to_vec(self).expect("links serialize");
        let tag = keys.sign_answer_link(&payload);
        format!("{}.{}", URL_SAFE_NO_PAD.encode(&payload), URL_SAFE_NO_PAD.encode(tag))
    }

    pub fn open(keys: &Keys, token: &str, now: time::OffsetDateTime) -> Result<Self, BadLink> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(BadLink::Forged);
        }
        let (payload, tag) = token.split_once('.').ok_or(BadLink::Forged)?;
        let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| BadLink::Forged)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| BadLink::Forged)?;
        if !keys.verify_answer_link(&payload, &tag) {
            return Err(BadLink::Forged);
        }
        let link: AnswerLink = serde_json::from_slice(&payload).map_err(|_| BadLink::Forged)?;
        if now.unix_timestamp() >= link.e {
            return Err(BadLink::Expired);
        }
        Ok(link)
    }
}

/// The answers a mail about `e` may offer as links, each with its label:
/// for a yes/no field, Yes and No; for a single choice, each option (up to
/// eight); and always Decline. The field must be the form's only one, or its
/// only required one (the optional others are left out of a link's answer).
/// `None` for any other form.
pub fn offered(e: &Elicitation) -> Option<Vec<(String, AnswerLink)>> {
    let form = e.form.as_ref()?;
    let required: Vec<_> = form.fields.iter().filter(|f| f.required).collect();
    let field = match (form.fields.as_slice(), required.as_slice()) {
        ([only], _) => only,
        (_, [only]) => *only,
        _ => return None,
    };
    let base = |a: ElicitAction, v: Option<Value>| AnswerLink {
        q: e.id,
        u: e.user_id,
        a,
        f: v.as_ref().map(|_| field.name.clone()),
        v,
        e: e.expires_at.unix_timestamp(),
    };
    let mut links = vec![];
    match &field.kind {
        FieldKind::Boolean { .. } => {
            links.push(("Yes".to_owned(), base(ElicitAction::Accept, Some(Value::Bool(true)))));
            links.push(("No".to_owned(), base(ElicitAction::Accept, Some(Value::Bool(false)))));
        }
        FieldKind::SingleSelect { options, .. } if !options.is_empty() && options.len() <= MAX_CHOICES => {
            for option in options {
                let label = first_words(option.title.as_deref().unwrap_or(&option.value));
                links.push((label, base(ElicitAction::Accept, Some(Value::String(option.value.clone())))));
            }
        }
        _ => return None,
    }
    links.push(("Decline to answer".to_owned(), base(ElicitAction::Decline, None)));
    Some(links)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::{Keys, SecretKey};

    fn keys(secret: &str) -> Keys {
        Keys::derive(&SecretKey::parse(secret).unwrap())
    }

    fn link() -> AnswerLink {
        AnswerLink {
            q: Uuid::now_v7(),
            u: Uuid::now_v7(),
            a: ElicitAction::Accept,
            f: Some("approve".into()),
            v: Some(Value::Bool(true)),
            e: (time::OffsetDateTime::now_utc() + time::Duration::minutes(5)).unix_timestamp(),
        }
    }

    #[test]
    fn a_link_opens_only_as_signed_and_before_it_expires() {
        let k = keys("an instance key that is long enough for the test");
        let l = link();
        let token = l.seal(&k);
        let now = time::OffsetDateTime::now_utc();
        assert_eq!(AnswerLink::open(&k, &token, now), Ok(l.clone()));
        assert_eq!(AnswerLink::open(&k, &token, now + time::Duration::minutes(6)), Err(BadLink::Expired));
        // Another Herald's key, an altered payload, garbage.
        let other = keys("another instance key, also long enough for it");
        assert_eq!(AnswerLink::open(&other, &token, now), Err(BadLink::Forged));
        let (payload, tag) = token.split_once('.').unwrap();
        let mut altered: AnswerLink =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
        altered.v = Some(Value::Bool(false));
        let forged = format!("{}.{tag}", URL_SAFE_NO_PAD.encode(serde_json::to_vec(&altered).unwrap()));
        assert_eq!(AnswerLink::open(&k, &forged, now), Err(BadLink::Forged));
        assert_eq!(AnswerLink::open(&k, "nonsense", now), Err(BadLink::Forged));
        assert_eq!(l.content(), Some(serde_json::json!({ "approve": true })));
    }
}
