-- A text/template like 0001_init.sql.
-- Exact command prefixes an operator allowed for one run while approving
-- one of its calls (issue 21 item 4): a later call of that run to the same
-- tool, with the same other arguments, whose every command starts with the
-- prefix, is approved in the operator's name without asking. prefix is a
-- JSON array of words; rest the call's other arguments (canonical JSON).
CREATE TABLE run_rules (
    id          {{.SerialKey}},
    run_id      TEXT NOT NULL,
    function    TEXT NOT NULL,
    arg         TEXT NOT NULL,
    prefix      TEXT NOT NULL,
    rest        TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    created     {{.Int}} NOT NULL
);
CREATE INDEX run_rules_run ON run_rules (run_id, id);
