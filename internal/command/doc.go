// Package command holds what warden knows about the programs agents run:
// the option grammar of common programs (which options take a value, which
// spellings mean the same option, where a subcommand starts), what the
// operands of find, chmod and git mean, and how an interpreter receives
// inline code. Both the exec rules (package rules) and the first pass of
// auto-review (package triage) read commands through it, so a program has
// one meaning in warden.
//
// Parse reads an argv with the grammar of its program into a Parsed value
// (the subcommand path, the options by canonical name, the operands), so
// that `git -C repo push`, `git -c user.name=x push` and `git push` share
// the path ["git", "push"], and `rm -rf`, `rm -fr`, `rm -r -f`, `rm -Rf`
// and `rm --recursive --force` share the options recursive and force.
package command
