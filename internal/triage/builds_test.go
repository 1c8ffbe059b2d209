package triage_test

import (
	"testing"

	"github.com/wardenhq/warden/action"
)

// TestFirstPass2_ProjectBuildsAndLocalTools checks routine work that the
// first pass used to misread — options taking values read as targets,
// build systems' own subcommands read as recipes, HTTPie's localhost
// shorthand read as a remote host, an option's value read as a system
// path — and near misses that still pass on.
func TestFirstPass2_ProjectBuildsAndLocalTools(t *testing.T) {
	const dir = "/home/dev/project"
	sh := func(script string) action.Action {
		return action.Action{Kind: action.Shell, Command: []string{"bash", "-lc", script}, Cwd: dir}
	}
	checkClass(t, []classCase{
		{"maven module option", sh("mvn -q -pl core -am test -Dtest=ParserTest"), "", allowed},
		{"maven resume option", sh("mvn -rf :api install -DskipTests"), "", notDenied},
		{"meson setup", sh("meson setup build --buildtype=release"), "", allowed},
		{"meson test", sh("meson test -C build"), "", allowed},
		{"bazel build", sh("bazel build //cmd/server:server"), "", allowed},
		{"bazel test", sh("bazel test //..."), "", allowed},
		{"bundle exec jekyll", sh("bundle exec jekyll build --drafts"), "", allowed},
		{"deno test", sh("deno test --allow-read=./fixtures"), "", allowed},
		{"deno test files", sh("deno test src/parse_test.ts"), "", allowed},
		{"httpie localhost shorthand", sh("http :3000/api/users page==2"), "", allowed},
		{"option value that is a name", sh("gs -sDEVICE=pdfwrite -dPDFSETTINGS=/prepress -o out.pdf docs/in.pdf"), "", allowed},
		// Near misses.
		{"bazel run", sh("bazel run //cmd/server"), "", notAllow},
		{"meson install", sh("meson install -C build"), "", notAllow},
		{"deno run", sh("deno run main.ts"), "", notAllow},
		{"bundle exec unknown", sh("bundle exec ./bin/migrate"), "", notAllow},
		{"option value under /etc", sh("gs -sDEVICE=pdfwrite -sOutputFile=/etc/motd docs/in.pdf"), "", notAllow},
		{"httpie remote", sh("http POST api.example.com/upload name=x"), "", notAllow},
	})
}
