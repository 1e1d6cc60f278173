-- Signing in through an identity provider (OpenID Connect, issue 17).

-- Whether the organisation's members may sign in with a password (an admin
-- turns it off once the organisation signs in through its identity provider).
ALTER TABLE orgs ADD COLUMN password_sign_in BOOLEAN NOT NULL DEFAULT TRUE;

-- Who a provider's subject is here. `provider` is `instance` (the operator's
-- provider) or `org:<uuid>` (an organisation's own): subjects of one provider
-- never name accounts through another.
CREATE TABLE identities (
    provider     TEXT NOT NULL,
    subject      TEXT NOT NULL,
    user_id      UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The e-mail the provider asserted at the last sign-in.
    email        TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    last_seen_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (provider, subject)
);
CREATE INDEX identities_by_user ON identities (user_id);

-- A sign-in under way: what the browser's return must match. Taken (deleted)
-- on return, so a state is good once; bound to the browser that started it by
-- a cookie whose SHA-256 is kept here.
CREATE TABLE sign_in_attempts (
    state_hash           BYTEA PRIMARY KEY,
    provider             TEXT NOT NULL,
    browser_hash         BYTEA NOT NULL,
    nonce                TEXT NOT NULL,
    -- The PKCE code verifier, sealed with the instance key.
    pkce_verifier_sealed BYTEA NOT NULL,
    return_to            TEXT NOT NULL,
    created_at           TIMESTAMPTZ NOT NULL,
    expires_at           TIMESTAMPTZ NOT NULL
);
CREATE INDEX sign_in_attempts_by_expiry ON sign_in_attempts (expires_at);

-- People an organisation removed: signing in through its provider does not
-- make them members again (an invite does).
CREATE TABLE membership_blocks (
    org_id     UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id    UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    blocked_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
