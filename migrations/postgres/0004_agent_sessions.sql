-- Legacy agents' sessions (MCP 2025-06-18 and 2025-11-25), minted by Herald on
-- `initialize`. In rows so that any replica serves them and they outlive a
-- restart; each replica keeps its own upstream link per session.
CREATE TABLE agent_sessions (
    -- SHA-256 of the Mcp-Session-Id (the id itself is never stored).
    id_hash          BYTEA PRIMARY KEY,
    org_id           UUID NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id          UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    server_id        UUID NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    protocol_version TEXT NOT NULL,
    -- The agent's clientInfo, passed on to modern servers.
    agent_info       JSONB,
    created_at       TIMESTAMPTZ NOT NULL,
    last_seen_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX agent_sessions_idle ON agent_sessions (last_seen_at);
