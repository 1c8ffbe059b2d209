// Package autoreview is the reviewer agent that decides requests to cross
// the sandbox boundary instead of a person (SPEC §6, G4–G13).
//
// A review takes three inputs: the conversation of the main agent, the exact
// action it asked for as JSON, and — only when a person approved one retry
// of an earlier denial through their own channel — an Override. It runs a
// separate model conversation whose system message is a fixed Template with
// the organisation's policy in its slot, and whose user message holds:
//
//   - the condensed transcript (Condense, G5), wrapped in an untrusted
//     evidence block that no text inside it can close or imitate;
//   - the action JSON (package action: action.JSON, action.Parse), keys sorted and long
//     strings cut in the middle;
//   - the trusted override note, outside the untrusted block (G12);
//   - the output contract (G6).
//
// The model may call read-only tools (ReadOnlyTools) within a small step
// budget and answers with a JSON verdict, which ParseVerdict reads only
// when it is the whole answer (a verdict in prose or nested in another
// object is asked again, then fails closed). Reviewer.Review turns the verdict into a Result: approved,
// denied (rationale plus the stricter G9 instruction), timed_out (not a
// denial; a timeout alone does not show the action is unsafe, G10) or failed
// (fail closed, and saying so). The whole reviewer conversation is kept in
// the Result so it can be saved with the run (G13).
//
// The policy text is resolved by ResolvePolicy from the managed file, the
// user's configuration and the bundled DefaultPolicy (G8).
//
// Hidden reasoning never reaches the reviewer: Condense reads only the
// visible content of user and assistant messages, the calls assistants made
// and the results tools returned. chat.Message carries no reasoning today;
// if a reasoning field is ever added, Condense will still not read it.
package autoreview
