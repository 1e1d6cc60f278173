-- Herald's automatic answers, explained in the person's inbox until they
-- dismiss the note (issue 15): when the note was dismissed, if it was.
ALTER TABLE elicitations ADD COLUMN note_dismissed_at INTEGER;
-- The inbox's notes: a person's recent questions the policy answered, not dismissed.
CREATE INDEX elicitations_notes ON elicitations (user_id, resolved_at)
    WHERE decided_by = 'policy' AND note_dismissed_at IS NULL;
