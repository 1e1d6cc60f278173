-- Which protocol era Herald speaks to each server: 'auto' (a 2025-11-25 session when the server
-- offers one, else 2026-07-28), or an era an admin pinned.
ALTER TABLE servers ADD COLUMN protocol TEXT NOT NULL DEFAULT 'auto'
    CHECK (protocol IN ('auto', '2025-11-25', '2026-07-28'));

-- The capabilities a legacy agent declared in `initialize` (JSON): Herald relays a server's
-- sampling and roots requests only to agents that can answer them.
ALTER TABLE agent_sessions ADD COLUMN agent_capabilities TEXT;

-- The API token a legacy session was opened with: sessions per token are capped, and revoking
-- the token ends its sessions. (Sessions opened before this column existed have none.)
ALTER TABLE agent_sessions ADD COLUMN token_id BLOB;
CREATE INDEX agent_sessions_token ON agent_sessions (token_id);
