// Package judge is the machinery of the first pass (SPEC G14, G15) that
// every judge works with, and the registry the judges join by name:
//
//   - the state of judging one action: Judgement gathers Findings and
//     makes the Verdict; Script is the state of judging one shell script
//     (its variables, links, the files it wrote and the secrets it holds),
//     walked command by Command through the shell parser and the exec
//     rules; Knowledge is what the first pass knows about programs
//     (programs.yaml, built from generated tables, and the configured
//     programs files);
//   - what a command does to a path: where a word lands (Where: the
//     workspace, a temporary directory, the home, the system, warden's
//     state), reads, writes and removals, secrets read and sent, the data
//     flowing between the commands of a script and the earlier steps of a
//     run (trajectory.go);
//   - the registries: RegisterJudges (the judges a programs file names with
//     judge:), RegisterCommandJudge (the judge of every command that is not
//     a wrapper) and RegisterActionJudge (the judges of MCP calls, file
//     edits and fetches, by kind).
//
// The judges live in packages above this one, which register themselves
// when imported: program (the programs a shell command runs), fileedit
// (file edits) and tool (MCP and function tool calls, fetches). Package
// triage assembles them into the first pass.
package judge
