-- The broker: replicas that hold suspended calls, and one record per elicitation.

-- Each running herald process; a replica whose heartbeat is stale is dead, and
-- whatever it left pending is resolved by another (or by the next start).
CREATE TABLE replicas (
    id           UUID PRIMARY KEY,
    started_at   TIMESTAMPTZ NOT NULL,
    heartbeat_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE elicitations (
    id              UUID PRIMARY KEY,
    org_id          UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    org_slug        TEXT NOT NULL,
    user_id         UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- What asked, as registered when it asked (the registry may change later).
    server_id       UUID REFERENCES servers (id) ON DELETE SET NULL,
    server_slug     TEXT NOT NULL,
    server_name     TEXT NOT NULL,
    server_url      TEXT NOT NULL,
    tool            TEXT,
    protocol        TEXT NOT NULL CHECK (protocol IN ('legacy', 'modern')),
    mode            TEXT NOT NULL CHECK (mode IN ('form', 'url')),
    message         TEXT NOT NULL,
    requested_schema JSONB,
    url             TEXT,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'resolved')),
    action          TEXT CHECK (action IN ('accept', 'decline', 'cancel')),
    content         JSONB,
    decided_by      TEXT CHECK (decided_by IN ('user', 'policy', 'timeout', 'server', 'caller', 'system')),
    reason          TEXT,
    replica_id      UUID NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    expires_at      TIMESTAMPTZ NOT NULL,
    resolved_at     TIMESTAMPTZ
);
CREATE INDEX elicitations_by_user ON elicitations (user_id, org_id, status, id);
CREATE INDEX elicitations_pending ON elicitations (expires_at) WHERE status = 'pending';
