-- Reaching people who are not looking (issue 16): whether a person has a
-- visible dashboard, their notification preferences and their organisation's
-- defaults, the organisations' signed webhooks, and every delivery as a row
-- that any replica may send or retry (an outbox).

-- A person with a visible dashboard tab on a replica; rows of a replica whose
-- heartbeat is stale do not count.
CREATE TABLE presence (
    user_id    UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    replica_id UUID NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, replica_id)
);

-- A person's own choices (JSON; a missing value means the organisation's default).
CREATE TABLE notification_prefs (
    user_id    UUID PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    document   JSONB NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

-- An organisation's defaults for its members, set by its admins.
CREATE TABLE org_notification_defaults (
    org_id     UUID PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    document   JSONB NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    updated_by UUID REFERENCES users (id) ON DELETE SET NULL
);

CREATE TABLE webhooks (
    id            UUID PRIMARY KEY,
    org_id        UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    url           TEXT NOT NULL,
    description   TEXT NOT NULL,
    -- The question events it receives, as a JSON array of names.
    events        JSONB NOT NULL,
    -- The signing secret, sealed with the instance key (it must be read to sign).
    secret_sealed BYTEA NOT NULL,
    created_by    UUID REFERENCES users (id) ON DELETE SET NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhooks_by_org ON webhooks (org_id, created_at);

-- One message to send: to a webhook or to a person. Claimed by one replica at
-- a time (claimed_until), retried with back-off until delivered or failed.
CREATE TABLE notification_deliveries (
    id              UUID PRIMARY KEY,
    org_id          UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    channel         TEXT NOT NULL CHECK (channel IN ('webhook', 'email')),
    webhook_id      UUID REFERENCES webhooks (id) ON DELETE CASCADE,
    user_id         UUID REFERENCES users (id) ON DELETE CASCADE,
    elicitation_id  UUID,
    event           TEXT NOT NULL,
    payload         JSONB NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'withdrawn')),
    attempts        BIGINT NOT NULL,
    last_status     BIGINT,
    last_error      TEXT,
    next_attempt_at TIMESTAMPTZ,
    claimed_by      UUID,
    claimed_until   TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL,
    delivered_at    TIMESTAMPTZ
);
CREATE INDEX deliveries_due ON notification_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_by_org ON notification_deliveries (org_id, created_at);
CREATE INDEX deliveries_by_question ON notification_deliveries (elicitation_id);
-- A webhook's log, and its newest delivery in the webhooks list.
CREATE INDEX deliveries_by_webhook ON notification_deliveries (webhook_id, created_at);

-- Through which channel a person's answer came (web, email), for the history.
ALTER TABLE elicitations ADD COLUMN answered_via TEXT;
