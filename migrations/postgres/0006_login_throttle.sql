-- The sign-in throttle: failed sign-ins per account and per client address,
-- shared by every replica. `key` is an HMAC (under the instance key) of the
-- scope and the email or address, so neither is stored in the clear, and an
-- email without an account is counted like one with.
CREATE TABLE login_failures (
    key             BYTEA PRIMARY KEY,
    failures        BIGINT NOT NULL,
    last_failure_at TIMESTAMPTZ NOT NULL,
    -- Until when sign-ins under this key are refused without checking a password.
    blocked_until   TIMESTAMPTZ
);
CREATE INDEX login_failures_last_failure ON login_failures (last_failure_at);
