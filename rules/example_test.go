package rules_test

import (
	"fmt"

	"github.com/wardenhq/warden/rules"
)

// Evaluate splits a script into its simple commands, matches each against
// the rules, and lets the strictest decision win; unmatched dangerous
// commands and scripts that cannot be analysed are at least prompt.
func ExampleEvaluate() {
	set, err := rules.Parse([]byte(`
prefix_rule(
    pattern = ["git", ["status", "diff", "log"]],
    match = ["git status", "git log -5"],
)
prefix_rule(
    pattern = ["git", "push"],
    decision = "prompt",
    justification = "Pushing publishes work.",
)
prefix_rule(
    pattern = ["rm", ["-rf", "-fr"], "/"],
    decision = "forbidden",
    not_match = ["rm -rf build"],
)
`), "example.rules")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, script := range []string{
		"git status && git log -5",
		"git diff | head; git push origin main",
		"sudo bash -c 'rm -rf /'",
		"rm -rf build",
		`eval "$CMD"`,
		"ls -la",
	} {
		res := rules.Evaluate(set, script)
		fmt.Printf("%-38s %-9s exit %d\n", script, rules.Word(res.Decision), rules.ExitCode(res.Decision))
	}
	// Output:
	// git status && git log -5               allow     exit 0
	// git diff | head; git push origin main  prompt    exit 10
	// sudo bash -c 'rm -rf /'                forbidden exit 11
	// rm -rf build                           prompt    exit 10
	// eval "$CMD"                            prompt    exit 10
	// ls -la                                 allow     exit 0
}

// Dangerous recognises destructive commands in any spelling, through
// wrappers.
func ExampleDangerous() {
	for _, argv := range [][]string{
		{"rm", "-r", "-f", "build"},
		{"sudo", "/bin/rm", "-fr", "/"},
		{"find", ".", "-exec", "rm", "-rf", "{}", "+"},
		{"git", "push", "--force"},
		{"rm", "-r", "build"},
	} {
		reason, ok := rules.Dangerous(argv)
		fmt.Println(ok, reason)
	}
	// Output:
	// true destructive: recursive forced deletion (rm -rf)
	// true destructive: rm of / (the whole file system)
	// true destructive: recursive forced deletion (rm -rf)
	// true destructive: git push rewrites or deletes remote history
	// false
}

// KnownSafe accepts read-only commands and refuses their writing flags.
func ExampleKnownSafe() {
	fmt.Println(rules.KnownSafe([]string{"git", "log", "--oneline"}))
	fmt.Println(rules.KnownSafe([]string{"git", "log", "--output=/tmp/x"}))
	fmt.Println(rules.KnownSafe([]string{"find", ".", "-name", "*.go"}))
	fmt.Println(rules.KnownSafe([]string{"find", ".", "-delete"}))
	// Output:
	// true
	// false
	// true
	// false
}

// A rule's decision has a public name, rules.Decision, so that code
// outside warden can hold and fold the verdicts of rules: the strictest
// one wins.
func ExampleDecision() {
	set, err := rules.Parse([]byte(`
prefix_rule(pattern = ["git", "status"])
prefix_rule(pattern = ["git", "push"], decision = "prompt")
prefix_rule(pattern = ["git", "push", "--force"], decision = "forbidden")
`), "example.rules")
	if err != nil {
		fmt.Println(err)
		return
	}
	var strictest rules.Decision // the zero Decision ranks with Allow
	for _, script := range []string{"git status", "git push origin main", "git push --force origin main"} {
		d := rules.Evaluate(set, script).Decision
		strictest = strictest.Stricter(d)
		fmt.Printf("%-29s %s\n", script, rules.Word(d))
	}
	fmt.Println("strictest:", rules.Word(strictest), "exit", rules.ExitCode(strictest))
	// Output:
	// git status                    allow
	// git push origin main          prompt
	// git push --force origin main  forbidden
	// strictest: forbidden exit 11
}
