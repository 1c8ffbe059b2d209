// Package autoreview registers the reviewer agent that decides requests to
// cross the sandbox boundary instead of a person (SPEC §6, G4–G13) as the
// "auto_review" approver of policy files and approvals_reviewer lists.
// Import it for its side effect:
//
//	import _ "github.com/wardenhq/warden/autoreview"
//
// The approver takes parameters model (required: a model spec such as
// openai/NAME), policy (the policy text; by default the one resolved from
// the managed file, the user's configuration and the bundled default, SPEC
// G8), timeout (a duration such as "90s", or seconds) and attempts; build
// it with approval.Build("auto_review", params) or name it in a policy
// entry. The reviewer itself (the condensed transcript, the prompt, its
// read-only tools, verdicts and policy precedence) is machinery of warden
// and lives in internal/autoreview.
package autoreview

import _ "github.com/wardenhq/warden/internal/autoreview" // registers the "auto_review" approver
