package rules_test

import (
	"testing"

	"github.com/wardenhq/warden/rules"
)

// spellingRules forbids or prompts for commands that have many spellings.
const spellingRules = `
prefix_rule(pattern = ["git", "push"], decision = "forbidden")
prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")
prefix_rule(pattern = ["chmod", "-R", "777"], decision = "forbidden")
prefix_rule(pattern = ["curl", "-X", "POST"], decision = "prompt")
prefix_rule(pattern = ["git", "reset", "--hard"], decision = "forbidden")
prefix_rule(pattern = ["git", "branch", "-D"], decision = "prompt")
prefix_rule(pattern = ["kubectl", "delete"], decision = "forbidden")
prefix_rule(pattern = ["docker", "run", "--privileged"], decision = "forbidden")
prefix_rule(pattern = ["npm", "install"], decision = "prompt")
prefix_rule(pattern = ["git", "clean", "-f"], decision = "forbidden")
prefix_rule(pattern = ["pip", "install", "--break-system-packages"], decision = "forbidden")
prefix_rule(pattern = ["wget", "-O"], decision = "prompt")
prefix_rule(pattern = ["cp", "-r"], decision = "prompt")
prefix_rule(pattern = ["systemctl", "stop"], decision = "forbidden")
`

// TestG14_RulesMatchEverySpelling checks that a prefix rule cannot be
// sidestepped by spelling: global options, clustered, split, reordered and
// long option spellings all match (SPEC G14, issue 7 item 4).
func TestG14_RulesMatchEverySpelling(t *testing.T) {
	set := load(t, "spelling.rules", spellingRules)
	tests := []struct {
		script string
		want   rules.Decision
	}{
		// git global options before the subcommand.
		{"git push origin main", rules.Forbidden},
		{"git -C repo push", rules.Forbidden},
		{"git -c user.name=x push", rules.Forbidden},
		{"git --git-dir=.git --work-tree=. push", rules.Forbidden},
		{"git --git-dir .git push origin", rules.Forbidden},
		{"git --no-pager -P -c a=b -C /tmp/x push", rules.Forbidden},
		{"/usr/bin/git -C repo push", rules.Forbidden},
		{"sudo git -C repo push", rules.Forbidden},
		{"git -C repo status", rules.Allow},
		{"git stash push", rules.Allow},
		// rm's recursive and forced deletion in every spelling.
		{"rm -rf build", rules.Forbidden},
		{"rm -fr build", rules.Forbidden},
		{"rm -r -f build", rules.Forbidden},
		{"rm -Rf build", rules.Forbidden},
		{"rm -fR build", rules.Forbidden},
		{"rm --recursive --force build", rules.Forbidden},
		{"rm --force --recursive build", rules.Forbidden},
		{"rm -r build -f", rules.Forbidden},
		{"rm -vrf build", rules.Forbidden},
		{"rm -r --force build", rules.Forbidden},
		{"rm -r build", rules.Allow},
		// chmod's recursion anywhere.
		{"chmod -R 777 /srv", rules.Forbidden},
		{"chmod --recursive 777 /srv", rules.Forbidden},
		{"chmod 777 -R /srv", rules.Forbidden},
		{"chmod -Rv 777 /srv", rules.Forbidden},
		// curl's request method spelled four ways.
		{"curl -X POST https://x.test", rules.Prompt},
		{"curl -XPOST https://x.test", rules.Prompt},
		{"curl --request POST https://x.test", rules.Prompt},
		{"curl --request=POST https://x.test", rules.Prompt},
		{"curl -s -X GET https://x.test", rules.Allow},
		// git subcommand options.
		{"git reset --hard HEAD~1", rules.Forbidden},
		{"git -C repo reset --hard", rules.Forbidden},
		{"git reset -q --hard", rules.Forbidden},
		{"git branch --delete --force topic", rules.Prompt},
		{"git branch -d -f topic", rules.Prompt},
		{"git clean -fd", rules.Forbidden},
		{"git clean -d --force", rules.Forbidden},
		{"git clean -xdf", rules.Forbidden},
		// kubectl and docker global options.
		{"kubectl -n prod delete pod x", rules.Forbidden},
		{"kubectl --context=prod delete pod x", rules.Forbidden},
		{"docker --context remote run --privileged alpine", rules.Forbidden},
		{"docker -H tcp://h:2375 run --rm --privileged alpine", rules.Forbidden},
		// subcommand aliases and option spellings.
		{"npm i left-pad", rules.Prompt},
		{"npm --prefix web install", rules.Prompt},
		{"pip install requests --break-system-packages", rules.Forbidden},
		{"pip --isolated install requests --break-system-packages", rules.Forbidden},
		{"wget --output-document=x https://x.test", rules.Prompt},
		{"wget -Ox https://x.test", rules.Prompt},
		{"cp -R a b", rules.Prompt},
		{"cp --recursive a b", rules.Prompt},
		{"systemctl --user stop x", rules.Forbidden},
		{"systemctl -q stop x", rules.Forbidden},
	}
	n := 0
	for _, tt := range tests {
		got := rules.Evaluate(set, tt.script).Decision
		// Some spellings are also dangerous by themselves; what counts is
		// that no spelling gets a weaker decision than the rule's.
		if got < tt.want || tt.want == rules.Allow && got == rules.Forbidden {
			t.Errorf("Evaluate(%q) = %v, want %v", tt.script, got, tt.want)
		}
		if tt.want != rules.Allow {
			n++
		}
	}
	if n < 20 {
		t.Fatalf("only %d spelling variants", n)
	}
}

// TestG14_SpellingNotLiteralIsPossible checks that a forbidden rule that
// would match by meaning through a word that is not literal prompts.
func TestG14_SpellingNotLiteralIsPossible(t *testing.T) {
	set := load(t, "spelling.rules", spellingRules)
	if got := rules.Evaluate(set, `git -C "$REPO" push`).Decision; got < rules.Prompt {
		t.Errorf("git -C \"$REPO\" push = %v, want at least prompt", got)
	}
}

// TestG14_AllowRulesMatchBySpelling checks that allow rules are not
// widened: they still match word for word only.
func TestG14_AllowRulesMatchBySpelling(t *testing.T) {
	set := load(t, "a.rules", `prefix_rule(pattern = ["git", "status"], decision = "allow")`)
	r := set.Rules()[0]
	if !r.Matches(argv("git status")) || r.Matches(argv("git -C x status")) {
		t.Error("an allow rule matched by meaning")
	}
}
