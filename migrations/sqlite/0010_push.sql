-- Browser push (issue 16): the browsers each person turned notifications on
-- in (one Web Push subscription each), and push as a third delivery channel.

CREATE TABLE push_devices (
    id                  BLOB PRIMARY KEY,
    user_id             BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- SHA-256 of the subscription's endpoint: a browser profile belongs to
    -- whoever turned push on in it last.
    endpoint_hash       BLOB NOT NULL UNIQUE,
    -- The push service's host (fcm.googleapis.com, updates.push.services.mozilla.com), shown in the list.
    push_service        TEXT NOT NULL,
    name                TEXT NOT NULL,
    -- The endpoint and the browser's keys, sealed with the instance key:
    -- whoever holds them can send this person notifications.
    subscription_sealed BLOB NOT NULL,
    created_at          INTEGER NOT NULL,
    last_sent_at        INTEGER,
    last_error          TEXT
);
CREATE INDEX push_devices_by_user ON push_devices (user_id, created_at);

-- SQLite cannot change a CHECK constraint in place: the outbox is rebuilt
-- with 'push' among its channels and a column naming the device.
CREATE TABLE notification_deliveries_v2 (
    id              BLOB PRIMARY KEY,
    org_id          BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    channel         TEXT NOT NULL CHECK (channel IN ('webhook', 'email', 'push')),
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
    delivered_at    INTEGER,
    -- A device removed takes its unsent messages with it.
    push_device_id  BLOB REFERENCES push_devices (id) ON DELETE CASCADE
);
INSERT INTO notification_deliveries_v2 (id, org_id, channel, webhook_id, user_id, elicitation_id, event,
    payload, status, attempts, last_status, last_error, next_attempt_at, claimed_by, claimed_until,
    created_at, delivered_at)
SELECT id, org_id, channel, webhook_id, user_id, elicitation_id, event, payload, status, attempts,
    last_status, last_error, next_attempt_at, claimed_by, claimed_until, created_at, delivered_at
FROM notification_deliveries;
DROP TABLE notification_deliveries;
ALTER TABLE notification_deliveries_v2 RENAME TO notification_deliveries;
CREATE INDEX deliveries_due ON notification_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_by_org ON notification_deliveries (org_id, created_at);
CREATE INDEX deliveries_by_question ON notification_deliveries (elicitation_id);
CREATE INDEX deliveries_by_webhook ON notification_deliveries (webhook_id, created_at);
CREATE INDEX deliveries_by_device ON notification_deliveries (push_device_id) WHERE push_device_id IS NOT NULL;
-- A person's latest e-mail, for the notifications page (did it arrive?).
CREATE INDEX deliveries_by_person ON notification_deliveries (user_id, channel, created_at);
