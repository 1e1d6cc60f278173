-- The sign-in throttle: failed sign-ins per account and per client address.
-- `key` is an HMAC (under the instance key) of the scope and the email or
-- address, so neither is stored in the clear, and an email without an
-- account is counted like one with.
CREATE TABLE login_failures (
    key             BLOB PRIMARY KEY,
    failures        INTEGER NOT NULL,
    last_failure_at INTEGER NOT NULL,
    -- Until when sign-ins under this key are refused without checking a password.
    blocked_until   INTEGER
);
CREATE INDEX login_failures_last_failure ON login_failures (last_failure_at);
