-- Legacy agents' sessions (MCP 2025-06-18 and 2025-11-25), minted by Herald on
-- `initialize`. In rows so that they outlive a restart (and, on PostgreSQL,
-- any replica serves them).
CREATE TABLE agent_sessions (
    -- SHA-256 of the Mcp-Session-Id (the id itself is never stored).
    id_hash          BLOB PRIMARY KEY,
    org_id           BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id          BLOB NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    server_id        BLOB NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    protocol_version TEXT NOT NULL,
    -- The agent's clientInfo (JSON), passed on to modern servers.
    agent_info       TEXT,
    created_at       INTEGER NOT NULL,
    last_seen_at     INTEGER NOT NULL
);
CREATE INDEX agent_sessions_idle ON agent_sessions (last_seen_at);
