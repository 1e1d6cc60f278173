-- Per-person OAuth to upstream servers (issue 17): each person connects to an
-- OAuth-protected server as themselves.

-- How Herald authenticates to the server: `none`, `headers` (the shared header
-- set, for everyone alike) or `oauth` (each person's own token).
ALTER TABLE servers ADD COLUMN auth_mode TEXT NOT NULL DEFAULT 'headers';
-- Client credentials an admin registered at the server's authorization server
-- themselves (used before any automatic registration), bound to its issuer.
ALTER TABLE servers ADD COLUMN oauth_client_id TEXT;
ALTER TABLE servers ADD COLUMN oauth_client_secret_sealed BLOB;
ALTER TABLE servers ADD COLUMN oauth_client_issuer TEXT;

-- Herald's client at a server's authorization server, keyed by its issuer:
-- credentials from one authorization server are never used at another.
CREATE TABLE upstream_clients (
    server_id            BLOB NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    issuer               TEXT NOT NULL,
    client_id            TEXT NOT NULL,
    client_secret_sealed BLOB,
    -- `preregistered`, `metadata_document` or `dynamic`.
    registration         TEXT NOT NULL,
    -- The token endpoint's client authentication: client_secret_basic, client_secret_post or none.
    auth_method          TEXT NOT NULL,
    created_at           INTEGER NOT NULL,
    PRIMARY KEY (server_id, issuer)
);

-- A person's connection to a server: their tokens, sealed, for the
-- authorization server that issued them.
CREATE TABLE upstream_connections (
    org_id               BLOB NOT NULL,
    user_id              BLOB NOT NULL,
    server_id            BLOB NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    issuer               TEXT NOT NULL,
    -- The resource indicator (RFC 8707) the tokens were issued for.
    resource             TEXT NOT NULL,
    access_token_sealed  BLOB NOT NULL,
    refresh_token_sealed BLOB,
    scopes               TEXT NOT NULL,
    expires_at           INTEGER,
    connected_at         INTEGER NOT NULL,
    refreshed_at         INTEGER NOT NULL,
    PRIMARY KEY (server_id, user_id),
    -- Leaving the organisation takes the connections with it.
    FOREIGN KEY (org_id, user_id) REFERENCES memberships (org_id, user_id) ON DELETE CASCADE
);
CREATE INDEX upstream_connections_by_user ON upstream_connections (user_id);

-- A connection under way: what the browser's return must match (taken once,
-- bound to the browser that started it).
CREATE TABLE upstream_connect_attempts (
    state_hash           BLOB PRIMARY KEY,
    org_id               BLOB NOT NULL,
    user_id              BLOB NOT NULL,
    server_id            BLOB NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    issuer               TEXT NOT NULL,
    resource             TEXT NOT NULL,
    browser_hash         BLOB NOT NULL,
    pkce_verifier_sealed BLOB NOT NULL,
    scopes               TEXT NOT NULL,
    return_to            TEXT NOT NULL,
    created_at           INTEGER NOT NULL,
    expires_at           INTEGER NOT NULL
);
CREATE INDEX upstream_connect_attempts_by_expiry ON upstream_connect_attempts (expires_at);
