-- The schema of both engines, as a text/template (see migrations in
-- open.go): .Int is the engine's 64-bit integer type, .SerialKey its
-- growing integer primary key, and .Postgres is set for PostgreSQL.
-- Times are Unix nanoseconds (UTC) in both engines.
CREATE TABLE runs (
    id      TEXT PRIMARY KEY,
    task    TEXT NOT NULL DEFAULT '',
    model   TEXT NOT NULL DEFAULT '',
    status  TEXT NOT NULL DEFAULT 'running',
    started {{.Int}} NOT NULL,
    ended   {{.Int}}
);
CREATE INDEX runs_started ON runs (started);

-- Every transcript event: its exact JSON line and the columns it is found by.
-- seq is the order of arrival.
CREATE TABLE events (
    seq     {{.SerialKey}},
    run_id  TEXT NOT NULL REFERENCES runs (id),
    id      TEXT NOT NULL,
    kind    TEXT NOT NULL,
    time    {{.Int}} NOT NULL,
    call_id TEXT NOT NULL DEFAULT '',
    agent   TEXT NOT NULL DEFAULT '',
    line    TEXT NOT NULL,
    UNIQUE (run_id, id)
);
CREATE INDEX events_run ON events (run_id, seq);
CREATE INDEX events_kind ON events (kind, time);
CREATE INDEX events_time ON events (time);
CREATE INDEX events_call ON events (run_id, call_id);

-- Requests that wait for a person. rev grows with every change, for
-- readers that poll.
CREATE TABLE requests (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    run_id      TEXT NOT NULL DEFAULT '',
    agent       TEXT NOT NULL DEFAULT '',
    call_id     TEXT NOT NULL DEFAULT '',
    function    TEXT NOT NULL DEFAULT '',
    arguments   TEXT NOT NULL DEFAULT 'null',
    view        TEXT NOT NULL DEFAULT '',
    message     TEXT NOT NULL DEFAULT '',
    result      TEXT NOT NULL DEFAULT '',
    choices     TEXT NOT NULL,
    status      TEXT NOT NULL,
    decision    TEXT NOT NULL DEFAULT '',
    explanation TEXT NOT NULL DEFAULT '',
    modified    TEXT,
    decided_by  TEXT NOT NULL DEFAULT '',
    created     {{.Int}} NOT NULL,
    deadline    {{.Int}},
    failsafe    TEXT NOT NULL DEFAULT '',
    decided_at  {{.Int}},
    rev         {{.Int}} NOT NULL
);
CREATE INDEX requests_status ON requests (status, created);
CREATE INDEX requests_run ON requests (run_id);
CREATE INDEX requests_rev ON requests (rev);

-- The one decision of each request: a second one cannot be inserted.
CREATE TABLE decisions (
    request_id  TEXT PRIMARY KEY REFERENCES requests (id),
    status      TEXT NOT NULL,
    decision    TEXT NOT NULL,
    explanation TEXT NOT NULL DEFAULT '',
    modified    TEXT,
    decided_by  TEXT NOT NULL DEFAULT '',
    decided_at  {{.Int}} NOT NULL
);

-- Auto-review denials (from auto_review events) and what overrides made of
-- them (override, override_used events).
CREATE TABLE denials (
    run_id     TEXT NOT NULL REFERENCES runs (id),
    id         TEXT NOT NULL,
    call_id    TEXT NOT NULL DEFAULT '',
    action     TEXT NOT NULL DEFAULT 'null',
    risk_level TEXT NOT NULL DEFAULT '',
    rationale  TEXT NOT NULL DEFAULT '',
    time       {{.Int}} NOT NULL,
    status     TEXT NOT NULL,
    event_seq  {{.Int}} NOT NULL,
    PRIMARY KEY (run_id, id)
);
CREATE INDEX denials_seq ON denials (event_seq);

-- The circuit breaker's state per turn (from turn_start, auto_review and
-- the breaker's warning events).
CREATE TABLE turns (
    run_id      TEXT NOT NULL REFERENCES runs (id),
    turn        {{.Int}} NOT NULL,
    started     {{.Int}} NOT NULL,
    reviews     {{.Int}} NOT NULL DEFAULT 0,
    denials     {{.Int}} NOT NULL DEFAULT 0,
    consecutive {{.Int}} NOT NULL DEFAULT 0,
    tripped     {{.Int}} NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, turn)
);
{{if .Postgres}}
CREATE SEQUENCE requests_rev_seq;
{{end}}