-- Foundation: the instance, accounts, organisations, tokens, the server registry, policy.

CREATE TABLE instance_settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One-time setup links: one per start of a replica on an empty database, all
-- valid until the first of them completes setup.
CREATE TABLE setup_tokens (
    token_hash BYTEA PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE users (
    id                  UUID PRIMARY KEY,
    email               TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL,
    password_hash       TEXT NOT NULL,
    created_at          TIMESTAMPTZ NOT NULL,
    password_changed_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE orgs (
    id         UUID PRIMARY KEY,
    slug       TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE memberships (
    org_id     UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id    UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_by_user ON memberships (user_id);

CREATE TABLE sessions (
    id         UUID PRIMARY KEY,
    user_id    UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    ended_at   TIMESTAMPTZ
);
CREATE INDEX sessions_by_user ON sessions (user_id);

CREATE TABLE invites (
    id          UUID PRIMARY KEY,
    org_id      UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    email       TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    token_hash  BYTEA NOT NULL UNIQUE,
    created_by  UUID NOT NULL REFERENCES users (id),
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    accepted_at TIMESTAMPTZ,
    accepted_by UUID REFERENCES users (id),
    revoked_at  TIMESTAMPTZ
);
CREATE INDEX invites_by_org ON invites (org_id, created_at);

-- A token lives only as long as its owner's membership in the org.
CREATE TABLE api_tokens (
    id           UUID PRIMARY KEY,
    org_id       UUID NOT NULL,
    user_id      UUID NOT NULL,
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    secret_hash  BYTEA NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL,
    last_used_at TIMESTAMPTZ,
    expires_at   TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ,
    FOREIGN KEY (org_id, user_id) REFERENCES memberships (org_id, user_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens (org_id, user_id, name) WHERE revoked_at IS NULL;

CREATE TABLE servers (
    id             UUID PRIMARY KEY,
    org_id         UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    slug           TEXT NOT NULL,
    name           TEXT NOT NULL,
    url            TEXT NOT NULL,
    header_names   JSONB NOT NULL,
    headers_sealed BYTEA NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL,
    cut_off_at     TIMESTAMPTZ,
    cut_off_by     UUID REFERENCES users (id) ON DELETE SET NULL,
    cut_off_reason TEXT,
    UNIQUE (org_id, slug)
);

CREATE TABLE org_policies (
    org_id     UUID PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    document   JSONB NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    updated_by UUID REFERENCES users (id) ON DELETE SET NULL
);
