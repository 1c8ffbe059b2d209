// Package policyset is the engine behind approval and review policies:
// compiled rule sets grouped into independent chains and their evaluation
// (SPEC A3, R3, P2, P7), and the generic registry of named handlers (SPEC
// P3). Packages approval and review wrap it for their handler types; the
// rules themselves (policy.Rule), entries and patterns are package
// policy's.
//
// What approval and review still write alike (the duplicate scan's pair
// approval.go ~ review.go) is the declarations of their Policy types and
// the outline of their Decide methods, and it stays written twice on
// purpose. Each Policy is a type defined over Policy[H], whose New,
// Compile, Len and Entries are one-line calls into this package; those
// lines are the public API of each package and cannot be shared without
// leaving it:
//   - Decide must be a method of each package's own type: its request,
//     record and outcome types differ and the public API names them. An
//     alias of Policy[H] could carry the shared methods but no Decide.
//   - Embedding Policy[H] (or a pointer to it) in each Policy would make
//     the promoted methods panic on a nil *approval.Policy or
//     *review.Policy, which TestP6_NilAndEmptyPoliciesDecideNothing
//     requires to decide nothing.
//   - The two Decide methods differ where it matters: an approval policy
//     whose approvers all escalate rejects and records the rejection
//     (deny by default, SPEC A4), a review policy continues and records
//     only when a reviewer was asked (SPEC R3); review stops on a
//     cancelled context (SPEC R9); the worst answer is ordered by
//     severity in one and by terminate in the other. A shared Decide
//     would take the request, the asking, the order, the final answer,
//     the fallback and the recording as six parameters: longer than the
//     two methods it would replace, and harder to read.
//
// What is the same logic is here once: the chains and their evaluation
// (Evaluate), the guard that turns a handler's panic into an error
// (Guard), the registry and the auto handler (AutoFactory).
package policyset
