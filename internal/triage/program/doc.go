// Package program holds the first pass's judges of the programs a shell
// command runs (SPEC G14), each registered with package judge under the
// name programs.yaml gives it (judge: git), and the judge of every command
// that is not a wrapper (judgeProgram), which picks a program's judge, or
// judges the programs the tables do not know by what their words show
// (unknown.go).
//
// Its files are by domain: developer tools (dev.go: git, go, npm, cargo,
// pip…), file operations (fileops.go: cp, mv, rm, chmod, tar…), the
// network (net.go: curl, ssh, nc…), the system (sys.go: systemctl, mount,
// firewalls, crontab, accounts…), infrastructure (infra.go: docker,
// kubectl, terraform, cloud CLIs, databases, keys), text and shell tools
// (programs.go: grep, sed, awk, find, env…) and unknown programs
// (unknown.go).
package program
