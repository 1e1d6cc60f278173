-- Policy: mutes, decline memory, organisation-wide rate counters, and the audit log.

-- A member's mute of a server (by themself, or automatically for pestering).
CREATE TABLE mutes (
    org_id     UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id    UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    server_id  UUID NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    reason     TEXT NOT NULL CHECK (reason IN ('user', 'pestering')),
    note       TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (org_id, user_id, server_id)
);

-- Every decline by a person; kept (unlike accepted content) for decline memory.
CREATE TABLE decline_records (
    id             UUID PRIMARY KEY,
    org_id         UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id        UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    server_slug    TEXT NOT NULL,
    tool           TEXT,
    fingerprint    BYTEA NOT NULL,
    elicitation_id UUID NOT NULL,
    declined_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX decline_records_lookup ON decline_records (org_id, user_id, fingerprint, declined_at);

-- Fixed-window counters, shared by every replica: one row per key and window.
CREATE TABLE rate_counters (
    key          TEXT NOT NULL,
    window_start TIMESTAMPTZ NOT NULL,
    count        BIGINT NOT NULL,
    PRIMARY KEY (key, window_start)
);

CREATE TABLE audit_log (
    id          UUID PRIMARY KEY,
    org_id      UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    at          TIMESTAMPTZ NOT NULL,
    -- Who acted: a person (with or without a token), the policy, or Herald itself.
    actor       TEXT NOT NULL CHECK (actor IN ('user', 'policy', 'system')),
    actor_id    UUID,
    action      TEXT NOT NULL,
    -- Whom or what it concerned.
    user_id     UUID,
    server_slug TEXT,
    reason      TEXT,
    details     JSONB NOT NULL
);
CREATE INDEX audit_log_by_org ON audit_log (org_id, id);

-- Fingerprints of what was asked, for decline memory.
ALTER TABLE elicitations ADD COLUMN fingerprint BYTEA;
-- What the policy noticed and showed with the form (warn-mode credential hits, URL flags).
ALTER TABLE elicitations ADD COLUMN policy_flags JSONB;

-- A form's fields keep the order the server sent them in (jsonb would sort them).
ALTER TABLE elicitations ALTER COLUMN requested_schema TYPE TEXT USING requested_schema::text;
