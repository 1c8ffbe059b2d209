-- A text/template like 0001_init.sql.
-- A request's result cut before a person saw it says so (issue 21 item 6):
-- "[bytes produced, bytes kept]" as JSON, '' when whole.
ALTER TABLE requests ADD COLUMN truncated TEXT NOT NULL DEFAULT '';
