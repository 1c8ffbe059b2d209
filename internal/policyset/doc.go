// Package policyset is the engine behind approval and review policies:
// compiled rule sets grouped into independent chains and their evaluation
// (SPEC A3, R3, P2, P7), and the generic registry of named handlers (SPEC
// P3). Packages approval and review wrap it for their handler types; the
// rules themselves (policy.Rule), entries and patterns are package
// policy's.
//
// What approval and review still write alike is the declarations of
// their Policy types and registries: each Policy is a type defined over
// Policy[H], whose New, Compile, Len and Entries are one-line calls into
// this package, and those lines are each package's public API. Embedding
// Policy[H] instead would make the promoted methods panic on a nil
// *approval.Policy or *review.Policy, which
// TestP6_NilAndEmptyPoliciesDecideNothing requires to decide nothing.
//
// What is the same logic is here once: the chains and their evaluation
// (Evaluate); asking a handler, checking and recording its answer (Judge,
// whose fields are what differs between the two: the decisions, their
// order of severity, and whether a cancelled review stops, SPEC R9); the
// guard that turns a handler's panic into an error (Guard); the registry
// and the auto handler (AutoFactory). The fallback when no handler
// decides stays in each Decide: an approval policy rejects and records
// the rejection (deny by default, SPEC A4), a review policy continues and
// records only when a reviewer was asked (SPEC R3).
package policyset
