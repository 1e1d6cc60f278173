-- Foundation: the instance, accounts, organisations, tokens, the server registry, policy.
-- SQLite flavour: BLOB uuids, INTEGER microseconds since the epoch, TEXT json.

CREATE TABLE instance_settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One-time setup links: one per start of a replica on an empty database, all
-- valid until the first of them completes setup.
CREATE TABLE setup_tokens (
    token_hash BLOB PRIMARY KEY,
    expires_at INTEGER NOT NULL
);

CREATE TABLE users (
    id                  BLOB PRIMARY KEY,
    email               TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL,
    password_hash       TEXT NOT NULL,
    created_at          INTEGER NOT NULL,
    password_changed_at INTEGER NOT NULL
);

CREATE TABLE orgs (
    id         BLOB PRIMARY KEY,
    slug       TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE memberships (
    org_id     BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id    BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_by_user ON memberships (user_id);

CREATE TABLE sessions (
    id         BLOB PRIMARY KEY,
    user_id    BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    ended_at   INTEGER
);
CREATE INDEX sessions_by_user ON sessions (user_id);

CREATE TABLE invites (
    id          BLOB PRIMARY KEY,
    org_id      BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    email       TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    token_hash  BLOB NOT NULL UNIQUE,
    created_by  BLOB NOT NULL REFERENCES users (id),
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    accepted_at INTEGER,
    accepted_by BLOB REFERENCES users (id),
    revoked_at  INTEGER
);
CREATE INDEX invites_by_org ON invites (org_id, created_at);

-- A token lives only as long as its owner's membership in the org.
CREATE TABLE api_tokens (
    id           BLOB PRIMARY KEY,
    org_id       BLOB NOT NULL,
    user_id      BLOB NOT NULL,
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    secret_hash  BLOB NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    expires_at   INTEGER,
    revoked_at   INTEGER,
    FOREIGN KEY (org_id, user_id) REFERENCES memberships (org_id, user_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens (org_id, user_id, name) WHERE revoked_at IS NULL;

CREATE TABLE servers (
    id             BLOB PRIMARY KEY,
    org_id         BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    slug           TEXT NOT NULL,
    name           TEXT NOT NULL,
    url            TEXT NOT NULL,
    header_names   TEXT NOT NULL,
    headers_sealed BLOB NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    cut_off_at     INTEGER,
    cut_off_by     BLOB REFERENCES users (id) ON DELETE SET NULL,
    cut_off_reason TEXT,
    UNIQUE (org_id, slug)
);

CREATE TABLE org_policies (
    org_id     BLOB PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    document   TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    updated_by BLOB REFERENCES users (id) ON DELETE SET NULL
);
