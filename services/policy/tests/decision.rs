//! The policy decision through the public API: one test per step, each
//! showing what it wins over and what wins over it.

use herald_policy::decision::{Decision, Facts, RateCounts, Rule, Warning, decide};
use herald_policy::url_rules::{UrlFlag, UrlRefusal, UrlRule, check_url};
use herald_policy::{CredentialAskMode, OrgPolicy, UrlModePolicy};

/// Facts where every step objects.
fn everything_wrong() -> Facts {
    Facts {
        protocol_ok: Err("requestedSchema: nested objects are not supported".to_owned()),
        server_cut_off: true,
        muted: true,
        credential_hits: 2,
        credential_mode: CredentialAskMode::Block,
        previously_declined: true,
        reasks_after_decline: 10,
        rate: RateCounts {
            user_server_last_minute: 1_000,
            server_last_hour: 1_000_000,
            org_last_hour: 1_000_000,
            pending_for_user: 1_000,
        },
        url: Some(Err(UrlRefusal {
            rule: UrlRule::NotHttps,
            reason: "only https URLs are allowed".to_owned(),
        })),
    }
}

/// The rule spelled as it is stored and sent.
fn rule(name: &str) -> Rule {
    Rule::parse(name).unwrap_or_else(|| panic!("{name} is no rule"))
}

fn decline(reason: &str) -> Decision {
    Decision::AutoDecline { reason: rule(reason), mute_for_pestering: false }
}

fn cancel(reason: &str) -> Decision {
    Decision::AutoCancel { reason: rule(reason) }
}

fn show(warnings: Vec<Warning>) -> Decision {
    Decision::Show { warnings }
}

fn policy() -> OrgPolicy {
    OrgPolicy::default()
}

#[test]
fn nothing_wrong_shows_without_warnings() {
    assert_eq!(decide(&Facts::default(), &policy()), show(vec![]));
}

#[test]
fn step_1_protocol_violation_beats_everything() {
    let facts = everything_wrong();
    assert_eq!(
        decide(&facts, &policy()),
        Decision::Refuse { reason: "requestedSchema: nested objects are not supported".to_owned() }
    );
}

#[test]
fn step_2_cut_off_beats_everything_after_the_protocol_check() {
    let facts = Facts { protocol_ok: Ok(()), ..everything_wrong() };
    assert_eq!(decide(&facts, &policy()), Decision::CancelCall { reason: Rule::CutOff });
    let only_cut_off = Facts { server_cut_off: true, ..Facts::default() };
    assert_eq!(decide(&only_cut_off, &policy()), Decision::CancelCall { reason: Rule::CutOff });
}

#[test]
fn step_3_a_muted_servers_credential_ask_is_declined_as_muted() {
    let facts = Facts { protocol_ok: Ok(()), server_cut_off: false, ..everything_wrong() };
    assert_eq!(decide(&facts, &policy()), decline("muted"));
    let only_muted = Facts { muted: true, ..Facts::default() };
    assert_eq!(decide(&only_muted, &policy()), decline(Rule::Muted.as_str()));
}

#[test]
fn step_4_credential_ban_by_mode() {
    let base = Facts { protocol_ok: Ok(()), server_cut_off: false, muted: false, ..everything_wrong() };
    // Block: declined as a credential ask even though it was declined before
    // and is over every cap.
    let block = Facts { credential_mode: CredentialAskMode::Block, ..base.clone() };
    assert_eq!(decide(&block, &policy()), decline("credential_ask"));
    // Warn: carries on; here decline memory answers next.
    let warn = Facts { credential_mode: CredentialAskMode::Warn, ..base.clone() };
    assert_eq!(
        decide(&warn, &policy()),
        Decision::AutoDecline { reason: Rule::PreviouslyDeclined, mute_for_pestering: true }
    );
    // Off: hits are ignored.
    let off = Facts { credential_mode: CredentialAskMode::Off, credential_hits: 3, ..Facts::default() };
    assert_eq!(decide(&off, &policy()), show(vec![]));
    // No hits: nothing to do in any mode.
    let clean = Facts { credential_mode: CredentialAskMode::Block, credential_hits: 0, ..Facts::default() };
    assert_eq!(decide(&clean, &policy()), show(vec![]));
}

#[test]
fn step_4_warn_mode_shows_with_a_warning() {
    let facts = Facts { credential_hits: 1, credential_mode: CredentialAskMode::Warn, ..Facts::default() };
    assert_eq!(decide(&facts, &policy()), show(vec![Warning::CredentialAsk]));
}

#[test]
fn step_5_decline_memory_and_pestering() {
    let policy = policy();
    assert_eq!(policy.decline_memory.pestering_threshold, 3);
    let over_caps = Facts { previously_declined: true, ..everything_wrong() };
    let base =
        Facts { protocol_ok: Ok(()), server_cut_off: false, muted: false, credential_hits: 0, ..over_caps };
    for (reasks, pestering) in [(0, false), (1, false), (2, false), (3, true), (4, true)] {
        let facts = Facts { reasks_after_decline: reasks, ..base.clone() };
        assert_eq!(
            decide(&facts, &policy),
            Decision::AutoDecline { reason: Rule::PreviouslyDeclined, mute_for_pestering: pestering },
            "{reasks} re-asks"
        );
    }
    // Re-asks only matter for a remembered decline.
    let not_declined = Facts { previously_declined: false, reasks_after_decline: 50, ..Facts::default() };
    assert_eq!(decide(&not_declined, &policy), show(vec![]));
    // The threshold is the organisation's.
    let mut strict = OrgPolicy::default();
    strict.decline_memory.pestering_threshold = 1;
    let first_reask = Facts { previously_declined: true, reasks_after_decline: 1, ..Facts::default() };
    assert_eq!(
        decide(&first_reask, &strict),
        Decision::AutoDecline { reason: Rule::PreviouslyDeclined, mute_for_pestering: true }
    );
}

#[test]
fn step_6_rate_caps_at_exactly_the_cap() {
    let policy = policy();
    let caps = &policy.rate_caps;
    let under = RateCounts {
        user_server_last_minute: caps.per_user_server_per_minute - 1,
        server_last_hour: caps.per_server_per_hour - 1,
        org_last_hour: caps.per_org_per_hour - 1,
        pending_for_user: caps.max_pending_per_user - 1,
    };
    let with = |rate: RateCounts| Facts { rate, ..Facts::default() };
    assert_eq!(decide(&with(under), &policy), show(vec![]));
    let at_user_server = RateCounts { user_server_last_minute: caps.per_user_server_per_minute, ..under };
    let at_server = RateCounts { server_last_hour: caps.per_server_per_hour, ..under };
    let at_org = RateCounts { org_last_hour: caps.per_org_per_hour, ..under };
    for rate in [at_user_server, at_server, at_org] {
        assert_eq!(decide(&with(rate), &policy), cancel("rate_capped"), "{rate:?}");
    }
    let at_pending = RateCounts { pending_for_user: caps.max_pending_per_user, ..under };
    assert_eq!(decide(&with(at_pending), &policy), cancel("too_many_pending"));
    // Both: the rate cap is reported.
    let both = RateCounts { pending_for_user: caps.max_pending_per_user, ..at_org };
    assert_eq!(decide(&with(both), &policy), cancel(Rule::RateCapped.as_str()));
}

#[test]
fn step_6_rate_caps_beat_the_url_rules_and_keep_no_warnings() {
    let facts = Facts {
        credential_hits: 1,
        credential_mode: CredentialAskMode::Warn,
        rate: RateCounts { user_server_last_minute: 6, ..RateCounts::default() },
        url: Some(Err(UrlRefusal { rule: UrlRule::Denied, reason: "denied".to_owned() })),
        ..Facts::default()
    };
    assert_eq!(decide(&facts, &policy()), cancel(Rule::RateCapped.as_str()));
}

#[test]
fn step_7_url_refusal_cancels_and_flags_warn() {
    let policy = policy();
    let refused = check_url("http://example.com/", &UrlModePolicy::default(), false).into_result();
    let facts = Facts { url: Some(refused), ..Facts::default() };
    assert_eq!(decide(&facts, &policy), cancel("url_refused"));

    let flagged = check_url("https://xn--pple-43d.com/", &UrlModePolicy::default(), false).into_result();
    let facts = Facts { url: Some(flagged), ..Facts::default() };
    assert_eq!(
        decide(&facts, &policy),
        show(vec![Warning::UrlFlags(vec![
            UrlFlag::Punycode,
            UrlFlag::MixedScript,
            UrlFlag::Confusable { looks_like: "apple".to_owned() },
        ])])
    );

    let clean = Facts { url: Some(Ok(vec![])), ..Facts::default() };
    assert_eq!(decide(&clean, &policy), show(vec![]));
}

#[test]
fn step_8_warnings_accumulate_in_step_order() {
    let facts = Facts {
        credential_hits: 1,
        credential_mode: CredentialAskMode::Warn,
        url: Some(Ok(vec![UrlFlag::NonDefaultPort])),
        ..Facts::default()
    };
    assert_eq!(
        decide(&facts, &policy()),
        show(vec![Warning::CredentialAsk, Warning::UrlFlags(vec![UrlFlag::NonDefaultPort])])
    );
}

#[test]
fn warnings_serialize_with_snake_case_tags() {
    let warnings = vec![
        Warning::CredentialAsk,
        Warning::UrlFlags(vec![UrlFlag::Punycode, UrlFlag::Confusable { looks_like: "okta".to_owned() }]),
    ];
    assert_eq!(
        serde_json::to_value(&warnings).expect("serializes"),
        serde_json::json!([
            { "type": "credential_ask" },
            { "type": "url_flags", "flags": [ { "type": "punycode" }, { "type": "confusable", "looks_like": "okta" } ] }
        ])
    );
}

#[test]
fn every_rule_has_one_spelling_that_parses_back() {
    let names: std::collections::HashSet<&str> = Rule::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(names.len(), Rule::ALL.len());
    for r in Rule::ALL {
        assert_eq!(Rule::parse(r.as_str()), Some(r));
    }
    assert_eq!(Rule::parse("Muted"), None);
}
