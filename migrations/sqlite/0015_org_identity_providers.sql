-- An organisation's own identity provider (issue 17), where the operator lets
-- organisations have one (HERALD_ORG_IDENTITY_PROVIDERS=on). Its subjects are
-- `org:<uuid>` in identities; they are forgotten when its issuer changes.
CREATE TABLE org_identity_providers (
    org_id               BLOB PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    issuer               TEXT NOT NULL,
    client_id            TEXT NOT NULL,
    -- Sealed with the instance key, in a context naming the organisation.
    client_secret_sealed BLOB NOT NULL,
    display_name         TEXT NOT NULL,
    default_role         TEXT NOT NULL,
    groups_claim         TEXT,
    -- JSON: [["group", "admin"|"member"], ...], highest role first.
    role_map             TEXT NOT NULL DEFAULT '[]',
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
);

-- The e-mail domains an organisation says are its own. Its provider signs in
-- (and links accounts by e-mail of) only people of domains the operator has
-- confirmed: an organisation's provider can assert any address, so until the
-- operator has confirmed the domain is the organisation's, it asserts nothing.
CREATE TABLE org_domains (
    org_id       BLOB NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    domain       TEXT NOT NULL,
    claimed_at   INTEGER NOT NULL,
    confirmed_at INTEGER,
    PRIMARY KEY (org_id, domain)
);
-- A domain is confirmed for one organisation at most.
CREATE UNIQUE INDEX org_domains_confirmed_once ON org_domains (domain) WHERE confirmed_at IS NOT NULL;
