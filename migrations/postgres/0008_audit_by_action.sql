-- The audit log read by action: the dashboard's filters list former members (from
-- `member.removed`) and deleted servers (from `server.deleted`), and an admin filters by
-- action, without walking the organisation's whole log.
CREATE INDEX audit_log_by_org_action ON audit_log (org_id, action, id);
