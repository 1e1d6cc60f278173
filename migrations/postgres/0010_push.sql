-- Browser push (issue 16): the browsers each person turned notifications on
-- in (one Web Push subscription each), and push as a third delivery channel.

CREATE TABLE push_devices (
    id                  UUID PRIMARY KEY,
    user_id             UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- SHA-256 of the subscription's endpoint: a browser profile belongs to
    -- whoever turned push on in it last.
    endpoint_hash       BYTEA NOT NULL UNIQUE,
    -- The push service's host (fcm.googleapis.com, updates.push.services.mozilla.com), shown in the list.
    push_service        TEXT NOT NULL,
    name                TEXT NOT NULL,
    -- The endpoint and the browser's keys, sealed with the instance key:
    -- whoever holds them can send this person notifications.
    subscription_sealed BYTEA NOT NULL,
    created_at          TIMESTAMPTZ NOT NULL,
    last_sent_at        TIMESTAMPTZ,
    last_error          TEXT
);
CREATE INDEX push_devices_by_user ON push_devices (user_id, created_at);

ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_channel_check;
ALTER TABLE notification_deliveries ADD CONSTRAINT notification_deliveries_channel_check
    CHECK (channel IN ('webhook', 'email', 'push'));
-- A device removed takes its unsent messages with it.
ALTER TABLE notification_deliveries ADD COLUMN push_device_id UUID REFERENCES push_devices (id) ON DELETE CASCADE;
CREATE INDEX deliveries_by_device ON notification_deliveries (push_device_id) WHERE push_device_id IS NOT NULL;
-- A person's latest e-mail, for the notifications page (did it arrive?).
CREATE INDEX deliveries_by_person ON notification_deliveries (user_id, channel, created_at);
