-- Reaching people who are not looking (issue 16): whether a person has a
-- visible dashboard, their notification preferences and their organisation's
-- defaults, the organisations' signed webhooks, and every delivery as a row
-- that any replica may send or retry (an outbox).

-- A person with a visible dashboard tab on a replica; rows of a replica whose
-- heartbeat is stale do not count.
CREATE TABLE presence (
    user_id    BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    replica_id BLOB NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, replica_id)
);

-- A person's own choices (JSON; a missing value means the organisation's default).
CREATE TABLE notification_prefs (
    user_id    BLOB PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    document   TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

-- An organisation's defaults for its members, set by its admins.
CREATE TABLE org_notification_defaults (
    org_id     BLOB PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    document   TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    updated_by BLOB REFERENCES users (id) ON DELETE SET NULL
);

CREATE TABLE webhooks (
    id            BLOB PRIMARY KEY,
    org_id        BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    url           TEXT NOT NULL,
    description   TEXT NOT NULL,
    -- The question events it receives, as a JSON array of names.
    events        TEXT NOT NULL,
    -- The signing secret, sealed with the instance key (it must be read to sign).
    secret_sealed BLOB NOT NULL,
    created_by    BLOB REFERENCES users (id) ON DELETE SET NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX webhooks_by_org ON webhooks (org_id, created_at);

-- One message to send: to a webhook or to a person. Claimed by one replica at
-- a time (claimed_until), retried with back-off until delivered or failed.
CREATE TABLE notification_deliveries (
    id              BLOB PRIMARY KEY,
    org_id          BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    channel         TEXT NOT NULL CHECK (channel IN ('webhook', 'email')),
    webhook_id      BLOB REFERENCES webhooks (id) ON DELETE CASCADE,
    user_id         BLOB REFERENCES users (id) ON DELETE CASCADE,
    elicitation_id  BLOB,
    event           TEXT NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'withdrawn')),
    attempts        INTEGER NOT NULL,
    last_status     INTEGER,
    last_error      TEXT,
    next_attempt_at INTEGER,
    claimed_by      BLOB,
    claimed_until   INTEGER,
    created_at      INTEGER NOT NULL,
    delivered_at    INTEGER
);
CREATE INDEX deliveries_due ON notification_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_by_org ON notification_deliveries (org_id, created_at);
CREATE INDEX deliveries_by_question ON notification_deliveries (elicitation_id);
-- A webhook's log, and its newest delivery in the webhooks list.
CREATE INDEX deliveries_by_webhook ON notification_deliveries (webhook_id, created_at);

-- Through which channel a person's answer came (web, email), for the history.
ALTER TABLE elicitations ADD COLUMN answered_via TEXT;
