// Package gateway is warden's MCP gateway (SPEC X2, the MCP side of G2):
// it stands between an MCP client and an MCP server, passes everything the
// two say to each other through unchanged, and governs tools/call — the
// approval policy before the call, the tool's approval mode on its declared
// annotations (the boundary: first pass, auto-review, a person), the call,
// then the review policy on the result before the client sees it.
//
// # Why messages, not an SDK server and client
//
// The gateway proxies at the level of JSON-RPC messages: it speaks to both
// peers through the official SDK's transports (mcp.Transport and
// mcp.Connection: stdio, a command's stdio, streamable HTTP) and reads and
// writes jsonrpc.Message values, but it does not re-serve the upstream
// through an mcp.Server backed by an mcp.Client. Re-serving would make
// warden re-implement every feature it relays — resources and their
// subscriptions, prompts, completion, logging levels, progress, sampling,
// elicitation, roots, pagination cursors, capabilities and protocol
// versions the client and server negotiate — and anything the SDK version
// does not model (a newer revision's method, an experimental capability)
// would be lost or changed. At the message level the two peers negotiate
// with each other; warden rewrites only request ids (so that its own
// requests, those of several upstreams and the client's can never collide,
// and a reused or unknown id is caught) and decides tools/call and its
// result. The tool listing is read on its way through (and asked for when a
// call comes before any listing), so that a call is judged by the
// annotations the server declared, never by anything the call carries.
//
// # Failing closed
//
// Every tools/call is governed: its parameters read strictly (SPEC A8; an
// unknown member such as a task augmentation is refused, since it would
// take the result past review), the decision recorded in the session's run
// (internal/govern's Session: the same transcript, denial log, breaker and
// overrides a hook session has), the result reviewed before it is
// returned. An error anywhere — the policy, the store, the upstream — is an
// error answer, never a call forwarded or a result returned unreviewed.
package gateway
