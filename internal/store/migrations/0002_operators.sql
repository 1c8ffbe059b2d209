-- A text/template like 0001_init.sql.
-- Operators: the named people whose credentials decide (SPEC S4). Only the
-- SHA-256 of a credential is kept; the credential itself is shown once.
CREATE TABLE operators (
    name    TEXT PRIMARY KEY,
    hash    TEXT NOT NULL UNIQUE,
    created {{.Int}} NOT NULL
);

-- Which run client owns each run: a run credential acts only on the runs
-- its client claimed first (SPEC S4).
CREATE TABLE run_owners (
    run_id  TEXT PRIMARY KEY,
    owner   TEXT NOT NULL,
    claimed {{.Int}} NOT NULL
);

-- Through which surface a decision came (panel, api, console, deadline);
-- decided_by names the operator when the credential has a name.
ALTER TABLE requests ADD COLUMN decided_via TEXT NOT NULL DEFAULT '';
ALTER TABLE decisions ADD COLUMN decided_via TEXT NOT NULL DEFAULT '';
