-- A text/template like 0001_init.sql.
-- What a person needs beside a request to decide it (issue 21 item 4): who
-- asked from which host, warden's reason, the model's justification, the
-- last turns of the conversation; a JSON object written with the request.
CREATE TABLE request_context (
    request_id TEXT PRIMARY KEY REFERENCES requests (id),
    context    TEXT NOT NULL
);
