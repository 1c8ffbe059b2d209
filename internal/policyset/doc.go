// Package policyset is the engine behind approval and review policies:
// compiled rule sets grouped into independent chains and their evaluation
// (SPEC A3, R3, P2, P7), and the generic registry of named handlers (SPEC
// P3). Packages approval and review wrap it for their handler types; the
// rules themselves (policy.Rule), entries and patterns are package
// policy's.
package policyset
