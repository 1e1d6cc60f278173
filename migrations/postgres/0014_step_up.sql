-- A server that refused a person's token for want of scopes (403
-- `insufficient_scope`): what it asked for, kept until the person connects
-- again with them (issue 17). Empty when nothing more is wanted.
ALTER TABLE upstream_connections ADD COLUMN wanted_scopes TEXT NOT NULL DEFAULT '';
