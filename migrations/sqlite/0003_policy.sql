-- Policy: mutes, decline memory, organisation-wide rate counters, and the audit log.

-- A member's mute of a server (by themself, or automatically for pestering).
CREATE TABLE mutes (
    org_id     BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id    BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    server_id  BLOB NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    reason     TEXT NOT NULL CHECK (reason IN ('user', 'pestering')),
    note       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (org_id, user_id, server_id)
);

-- Every decline by a person; kept (unlike accepted content) for decline memory.
CREATE TABLE decline_records (
    id             BLOB PRIMARY KEY,
    org_id         BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id        BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    server_slug    TEXT NOT NULL,
    tool           TEXT,
    fingerprint    BLOB NOT NULL,
    elicitation_id BLOB NOT NULL,
    declined_at    INTEGER NOT NULL
);
CREATE INDEX decline_records_lookup ON decline_records (org_id, user_id, fingerprint, declined_at);

-- Fixed-window counters, shared by every replica: one row per key and window.
CREATE TABLE rate_counters (
    key          TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (key, window_start)
);

CREATE TABLE audit_log (
    id          BLOB PRIMARY KEY,
    org_id      BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    at          INTEGER NOT NULL,
    -- Who acted: a person (with or without a token), the policy, or Herald itself.
    actor       TEXT NOT NULL CHECK (actor IN ('user', 'policy', 'system')),
    actor_id    BLOB,
    action      TEXT NOT NULL,
    -- Whom or what it concerned.
    user_id     BLOB,
    server_slug TEXT,
    reason      TEXT,
    details     TEXT NOT NULL
);
CREATE INDEX audit_log_by_org ON audit_log (org_id, id);

-- Fingerprints of what was asked, for decline memory.
ALTER TABLE elicitations ADD COLUMN fingerprint BLOB;
-- What the policy noticed and showed with the form (warn-mode credential hits, URL flags).
ALTER TABLE elicitations ADD COLUMN policy_flags TEXT;
