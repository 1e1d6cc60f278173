-- Questions Herald asks itself (issue 17): a person's call to a server that acts
-- as each person waits while Herald asks them to connect their account. Such a
-- question is attributed to Herald, for the server it names, and no server's
-- policy (mutes, decline memory, rate caps, URL rules) applies to it.
ALTER TABLE elicitations ADD COLUMN asked_by TEXT NOT NULL DEFAULT 'server'
    CHECK (asked_by IN ('server', 'herald'));
