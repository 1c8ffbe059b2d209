// Package triage registers the deterministic first pass of auto-review
// (SPEC G14, G15) as the "first_pass" approver of policy files and
// approvals_reviewer lists ("rules", its old name, is still accepted, with
// a warning). Import it for its side effect:
//
//	import _ "github.com/wardenhq/warden/triage"
//
// The first pass itself (its classes, verdicts and the approver that
// escalates unclear actions) is machinery of warden and lives in
// internal/triage; this package is the public door to its registration.
// The approver takes one parameter, rules: a rules file or a list of them
// (Codex .rules or YAML; directories load every rules file in them).
//
// Deprecated: import package firstpass, named after the component.
package triage

import _ "github.com/wardenhq/warden/internal/triage" // registers the "first_pass" approver
