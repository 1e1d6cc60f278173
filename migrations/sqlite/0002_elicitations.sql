-- The broker: replicas that hold suspended calls, and one record per elicitation.

-- Each running herald process; a replica whose heartbeat is stale is dead, and
-- whatever it left pending is resolved by another (or by the next start).
CREATE TABLE replicas (
    id           BLOB PRIMARY KEY,
    started_at   INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL
);

CREATE TABLE elicitations (
    id              BLOB PRIMARY KEY,
    org_id          BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    org_slug        TEXT NOT NULL,
    user_id         BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- What asked, as registered when it asked (the registry may change later).
    server_id       BLOB REFERENCES servers (id) ON DELETE SET NULL,
    server_slug     TEXT NOT NULL,
    server_name     TEXT NOT NULL,
    server_url      TEXT NOT NULL,
    tool            TEXT,
    protocol        TEXT NOT NULL CHECK (protocol IN ('legacy', 'modern')),
    mode            TEXT NOT NULL CHECK (mode IN ('form', 'url')),
    message         TEXT NOT NULL,
    requested_schema TEXT,
    url             TEXT,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'resolved')),
    action          TEXT CHECK (action IN ('accept', 'decline', 'cancel')),
    content         TEXT,
    decided_by      TEXT CHECK (decided_by IN ('user', 'policy', 'timeout', 'server', 'caller', 'system')),
    reason          TEXT,
    replica_id      BLOB NOT NULL,
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    resolved_at     INTEGER
);
CREATE INDEX elicitations_by_user ON elicitations (user_id, org_id, status, id);
CREATE INDEX elicitations_pending ON elicitations (expires_at) WHERE status = 'pending';
