//! `/answer/{token}`: the pages behind an e-mail's one-click answer links.
//! `GET` only shows what the link would answer and a Confirm button (mail
//! scanners that fetch links change nothing); `POST` (the button, from this
//! page only) answers, as the person the link was made for, first answer wins.
//! A forged, altered, expired or spent link gets a page that says so.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use herald_mcp::ElicitAction;
use time::OffsetDateTime;

use crate::app::AppState;
use crate::broker::question::Channel;
use crate::broker::respond::{Answer, RespondError, respond};
use crate::notify::content::{first_words, tool_words};
use crate::notify::links::{AnswerLink, BadLink};
use crate::storage::Elicitation;
use crate::web::{escape, server_page};

/// What the link stands for, once it checks out: its question, pending.
async fn checked(state: &AppState, token: &str) -> Result<(AnswerLink, Elicitation), Response> {
    let link = AnswerLink::open(&state.keys, token, OffsetDateTime::now_utc()).map_err(|bad| match bad {
        BadLink::Forged => server_page(
            StatusCode::BAD_REQUEST,
            "This link does not work",
            "<p>It was not made by this Herald, or it was changed on its way. Nothing was answered.</p>",
        ),
        BadLink::Expired => {
            ended_page("The question's time ran out before this link was used. Nothing was answered.")
        }
    })?;
    let record = state.store.elicitation_of_user(link.u, link.q).await.map_err(|_| unavailable())?;
    let Some(record) = record else {
        return Err(ended_page("The question no longer exists. Nothing was answered."));
    };
    let member = state.store.membership(&record.org_slug, link.u).await.map_err(|_| unavailable())?;
    if member.is_none() {
        return Err(ended_page(
            "You are no longer a member of the organisation that was asked. Nothing was answered.",
        ));
    }
    if let Some(outcome) = &record.outcome {
        return Err(ended_page(&format!(
            "It has already ended ({}). This link changes nothing; the history in Herald shows how it ended.",
            outcome.action.as_str()
        )));
    }
    Ok((link, record))
}

fn ended_page(sentence: &str) -> Response {
    server_page(StatusCode::GONE, "This question is over", &format!("<p>{}</p>", escape(sentence)))
}

fn unavailable() -> Response {
    server_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "Try again in a moment",
        "<p>Herald could not read the question just now.</p>",
    )
}

/// The answer in words.
fn answer_words(link: &AnswerLink, record: &Elicitation) -> String {
    match (link.a, &link.v) {
        (ElicitAction::Accept, Some(serde_json::Value::Bool(true))) => "Yes".to_owned(),
        (ElicitAction::Accept, Some(serde_json::Value::Bool(false))) => "No".to_owned(),
        (ElicitAction::Accept, Some(serde_json::Value::String(value))) => {
            let label = record
                .form
                .as_ref()
                .and_then(|f| f.fields.first())
                .and_then(|f| match &f.kind {
                    herald_mcp::FieldKind::SingleSelect { options, .. } => {
                        options.iter().find(|o| &o.value == value).and_then(|o| o.title.clone())
                    }
                    _ => None,
                })
                .unwrap_or_else(|| value.clone());
            first_words(&label)
        }
        _ => "Decline to answer".to_owned(),
    }
}

fn question_words(record: &Elicitation) -> String {
    format!(
        "<p><strong>{}</strong> asks you, through the tool <strong>{}</strong>:</p><blockquote>{}</blockquote>",
        escape(&first_words(&record.server.name)),
        escape(&tool_words(record)),
        escape(&first_words(&record.message))
    )
}

pub async fn show(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let (link, record) = match checked(&state, &token).await {
        Ok(found) => found,
        Err(page) => return page,
    };
    let answer = escape(&answer_words(&link, &record));
    let body = format!(
        "{}<p>Your answer: <strong>{answer}</strong></p>\
         <form method=\"post\"><button type=\"submit\" class=\"primary\">Confirm: {answer}</button></form>\
         <p class=\"muted\">Nothing is answered until you confirm. To answer differently, open the question \
         in <a href=\"/?question={}\">Herald</a>.</p>",
        question_words(&record),
        record.id
    );
    server_page(StatusCode::OK, "Confirm your answer", &body)
}

pub async fn confirm(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(token): Path<String>,
) -> Response {
    // The button is on this origin's page: a form posted from anywhere else answers nothing.
    let origin_ok = headers
        .get(header::ORIGIN)
        .is_none_or(|o| o.to_str().is_ok_and(|o| o == state.config.public_origin()));
    let fetch_ok = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_none_or(|site| matches!(site, "same-origin" | "none"));
    if !origin_ok || !fetch_ok {
        return server_page(
            StatusCode::FORBIDDEN,
            "Confirm on Herald's page",
            "<p>This answer was sent from another site. Open the link from your e-mail and confirm there.</p>",
        );
    }
    let (link, record) = match checked(&state, &token).await {
        Ok(found) => found,
        Err(page) => return page,
    };
    let answer = Answer { action: link.a, content: link.content() };
    match respond(&state.broker, link.u, Some(record.org_id), link.q, answer, Channel::Email).await {
        Ok(_) => {
            let body = format!(
                "{}<p>You answered: <strong>{}</strong>. {} has been told.</p>",
                question_words(&record),
                escape(&answer_words(&link, &record)),
                escape(&first_words(&record.server.name))
            );
            server_page(StatusCode::OK, "Answered", &body)
        }
        Err(RespondError::Ended(action)) => ended_page(&format!(
            "It has already ended ({action}): someone answered first, or its time ran out. This link changes nothing."
        )),
        Err(RespondError::NotFound) => ended_page("The question no longer exists. Nothing was answered."),
        Err(RespondError::Invalid(_)) => server_page(
            StatusCode::UNPROCESSABLE_ENTITY,
            "This answer does not fit",
            "<p>The question's form does not accept this answer. Open it in Herald to answer.</p>",
        ),
        Err(RespondError::Store(e)) => {
            tracing::warn!(error = %e, "could not record an answer from an e-mail link");
            unavailable()
        }
    }
}
