// Package hook governs the coding agents warden does not run — Claude Code,
// Codex, Gemini CLI and Cursor — through their hook protocols (SPEC X1,
// X3): `warden hook HOST` reads one hook event on stdin, decides it with
// warden's approval and review policies, exec rules, the first pass,
// auto-review and the person's queue, and answers in that host's format and
// exit-code conventions.
//
// Each host is data (Host): how its events parse (strictly, SPEC A8: an
// unknown event, field or shape is refused), what its tools are (Tools: a
// shell, a file read, a write or edit with its path and content fields, a
// web fetch, an MCP call, a sub-agent), and how each decision is answered
// (the table of docs/hooks.md). The tools table makes the first pass and
// the reviewer judge Claude's Write(file_path='~/.bashrc') or Gemini's
// replace as they judge a text_editor write, and a shell command as a bash
// command.
//
// A hook never fails open: input that does not parse, an unknown event, an
// unreachable store or server, or an internal error answers with the host's
// deny, and exit code 2 where the host reads it (Claude Code and Gemini CLI
// treat exit 1 as "proceed").
package hook
