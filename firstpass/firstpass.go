// Package firstpass registers the deterministic first pass of auto-review
// (SPEC G14, G15) as the "first_pass" approver of policy files and
// approvals_reviewer lists. Import it for its side effect:
//
//	import _ "github.com/wardenhq/warden/firstpass"
//
// The first pass judges a request to cross the sandbox boundary without a
// model: it allows what it can show is routine, denies what it can show is
// harmful, and passes the rest on to the next approver. It is machinery of
// warden and lives in internal/triage; this package is the public door to
// its registration. The approver takes one parameter, rules: an exec rules
// file or a list of them (Codex .rules or YAML; directories load every
// rules file in them). "rules", the approver's old name, is still
// accepted, with a warning.
package firstpass

import _ "github.com/wardenhq/warden/internal/triage" // registers the "first_pass" approver
