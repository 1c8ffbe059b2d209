package triage

import (
	"strings"

	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = registerJudges(map[string]func(*sh, *cmd){
	"apt":         judgeApt,
	"cloud":       judgeCloud,
	"docker":      judgeDocker,
	"gpg":         judgeGpg,
	"helm":        judgeHelm,
	"kubectl":     judgeKubectl,
	"openssl":     judgeOpenssl,
	"secret_tool": judgeSecretTool,
	"sql":         judgeSQL,
	"ssh_add":     judgeSSHAdd,
	"ssh_keygen":  judgeSSHKeygen,
	"terraform":   judgeTerraform,
})

// Containers, clusters, clouds, databases and key tools.

func judgeDocker(s *sh, c *cmd) {
	i := sub(c.args, "-H", "--host", "--context", "-c", "--config", "--log-level")
	if i >= len(c.args) {
		s.allow(c.name)
		return
	}
	rest := c.args[i:]
	v := rest[0]
	if v == "compose" || v == "container" || v == "image" || v == "volume" || v == "network" || v == "system" ||
		v == "builder" || v == "buildx" || v == "context" || v == "plugin" {
		j := sub(rest, "-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory")
		if j < len(rest) {
			v = v + " " + rest[j]
			rest = rest[j:]
		}
	}
	switch v {
	case "ps", "images", "logs", "inspect", "version", "info", "stats", "top", "port", "diff", "history", "events",
		"search", "image ls", "image inspect", "image history", "container ls", "container inspect", "container logs",
		"volume ls", "volume inspect", "network ls", "network inspect", "system df", "system info", "context ls",
		"context show", "compose ps", "compose logs", "compose config", "compose ls", "compose top", "compose images",
		"compose version", "compose port", "buildx ls", "builder ls", "plugin ls", "compose events":
		s.allow(c.name + " " + v)
	case "build", "buildx build", "image build", "pull", "image pull", "compose build", "compose pull", "tag", "image tag",
		"save", "load", "image save", "image load", "create", "compose create", "compose start", "compose stop",
		"compose restart", "start", "stop", "restart", "pause", "unpause", "kill", "wait", "rename", "attach",
		"container stop", "container start", "container restart", "network create", "compose up", "commit", "cp",
		"container prune", "image prune", "builder prune", "buildx prune", "network prune", "rm", "rmi", "container rm",
		"image rm", "compose rm", "volume create", "context use", "buildx create", "buildx use":
		if strings.HasSuffix(v, "prune") && (shell.HasLong(rest, "volumes") || shell.HasShort(rest, 'v', "")) {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes data volumes")
			return
		}
		if v == "compose up" {
			s.allow(c.name + " compose up")
			return
		}
		if v == "cp" {
			// docker cp SRC CONTAINER:DST: a local source leaves the
			// machine's boundary for the container (and its image).
			for _, o := range shell.Operands(rest, "") {
				if strings.Contains(o, ":") {
					continue
				}
				if l, what := s.secret(s.where(o, c.cwd)); l > secret.None {
					s.esc(vocab.Exfiltration, high, "`"+c.text+"` copies "+what+" into a container")
					return
				}
			}
		}
		if v == "rm" || v == "rmi" || v == "container rm" || v == "image rm" {
			for k := i; k < len(c.args); k++ {
				if !c.known[k] && !strings.HasPrefix(c.args[k], "-") {
					s.esc(vocab.Destructive, medium, "`"+c.text+"` removes containers or images that are not known before it runs (possibly all of them)")
					return
				}
			}
		}
		if v == "compose rm" && (shell.HasShort(rest, 'v', "") || shell.HasLong(rest, "volumes")) || (v == "rm" || v == "container rm") && shell.HasShort(rest, 'v', "") {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes data volumes")
			return
		}
		s.allow(c.name + " " + v)
	case "system prune":
		if shell.HasLong(rest, "volumes") {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes data volumes")
			return
		}
		s.allow(c.name + " system prune")
	case "compose down":
		if shell.HasShort(rest, 'v', "") || shell.HasLong(rest, "volumes") {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes the project's data volumes")
			return
		}
		s.allow(c.name + " compose down")
	case "volume rm", "volume prune":
		s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes data volumes")
	case "run", "container run", "compose run", "create-run":
		s.dockerRun(c, rest)
	case "exec", "container exec", "compose exec":
		s.esc(vocab.Routine, low, "`"+c.text+"` runs a command in a container")
	case "login":
		if shell.HasLong(rest, "password-stdin") || !shell.HasShort(rest, 'p', "u") && !shell.HasLong(rest, "password") {
			s.allow("docker login")
			return
		}
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` puts a password on the command line")
	case "push", "image push", "compose push", "buildx imagetools":
		s.esc(vocab.Exfiltration, low, "`"+c.text+"` publishes an image")
	default:
		s.esc(vocab.Routine, low, "`"+c.text+"`: "+c.name+" "+v+" is not a subcommand the first pass knows")
	}
}

// dockerRun judges starting a container: privileges, host mounts, host
// namespaces and published ports decide.
func (s *sh) dockerRun(c *cmd, rest []string) {
	risky := ""
	for i := 1; i < len(rest); i++ {
		a := rest[i]
		val := ""
		name := a
		if strings.HasPrefix(a, "--") {
			if n, v, ok := strings.Cut(a, "="); ok {
				name, val = n, v
			} else if i+1 < len(rest) {
				val = rest[i+1]
			}
		} else if (a == "-v" || a == "-p" || a == "-e") && i+1 < len(rest) {
			val = rest[i+1]
		}
		switch name {
		case "--privileged":
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` runs a privileged container")
			risky = "privileged"
		case "--pid", "--network", "--net", "--ipc", "--uts", "--userns":
			if strings.HasPrefix(val, "host") {
				s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` shares the host's "+strings.TrimPrefix(name, "--")+" namespace")
				risky = "host"
			}
		case "--cap-add", "--security-opt", "--device":
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` gives the container extra privileges ("+name+")")
			risky = "caps"
		case "-v", "--volume", "--mount":
			src, _, _ := strings.Cut(val, ":")
			if name == "--mount" {
				for _, kv := range strings.Split(val, ",") {
					if k, v, ok := strings.Cut(kv, "="); ok && (k == "source" || k == "src") {
						src = v
					}
				}
			}
			if src == "" || !(strings.HasPrefix(src, "/") || strings.HasPrefix(src, "~") || strings.HasPrefix(src, ".") || strings.HasPrefix(src, "$")) {
				continue // a named volume
			}
			pl := s.where(src, c.cwd)
			switch {
			case s.broadPath(pl) != "" || strings.HasSuffix(pl.abs, "docker.sock") || pl.zone == zSystem && criticalSystemPath(pl.abs):
				s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` mounts "+src+" of the host into the container")
				risky = "mount"
			case pl.zone == zWork || pl.zone == zTmp:
			default:
				if level, what := s.secret(pl); level > secret.None {
					s.esc(vocab.CredentialProbing, high, "`"+c.text+"` mounts "+what+" into the container")
				} else {
					s.esc(vocab.Routine, low, "`"+c.text+"` mounts "+src+" into the container")
				}
			}
		case "-p", "--publish":
			if strings.HasPrefix(val, "0.0.0.0:") || strings.HasPrefix(val, "[::]:") {
				s.esc(vocab.Exfiltration, medium, "`"+c.text+"` publishes a port on every network interface")
			}
		case "-e", "--env":
			if strings.Contains(strings.ToUpper(val), "AUTH_METHOD=TRUST") || strings.Contains(strings.ToUpper(val), "ALLOW_EMPTY_PASSWORD") {
				s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` starts a service without authentication")
			}
		}
	}
	if risky == "" {
		s.allow("runs a container")
	}
}

func judgeKubectl(s *sh, c *cmd) {
	i := sub(c.args, "-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server", "--token")
	if shell.HasLong(c.args, "token") {
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` puts a token on the command line")
	}
	if i >= len(c.args) {
		s.allow("kubectl")
		return
	}
	rest := c.args[i:]
	verb := rest[0]
	obj := ""
	if j := sub(rest, "-n", "--namespace", "-o", "--output", "-l", "--selector", "--context"); j < len(rest) {
		obj = strings.ToLower(rest[j])
	}
	secretObj := strings.HasPrefix(obj, "secret") || strings.HasPrefix(obj, "secrets/") || obj == "sa" || strings.HasPrefix(obj, "serviceaccount")
	if kubectlDryRun(rest) {
		switch verb {
		case "apply", "create", "replace", "patch", "delete", "label", "annotate", "scale", "expose", "set", "run", "autoscale":
			// --dry-run=client or =server: the cluster is not changed.
			s.allow("kubectl " + verb + " --dry-run")
			return
		}
	}
	switch verb {
	case "get":
		out := strings.Join(shell.OptValues(rest, "-o", "output"), ",")
		if strings.HasPrefix(obj, "secret") {
			if out != "" && out != "name" && out != "wide" {
				c.out, c.outWhat = secret.Critical, "Kubernetes secrets"
				if s.decodedLater(c) || shell.HasShort(rest, 'A', "nol") || shell.HasLong(rest, "all-namespaces") {
					s.deny(vocab.CredentialProbing, "`"+c.text+"` dumps and decodes Kubernetes secrets")
					return
				}
				s.esc(vocab.CredentialProbing, high, "`"+c.text+"` prints Kubernetes secrets")
				return
			}
			s.esc(vocab.CredentialProbing, low, "`"+c.text+"` lists Kubernetes secrets")
			return
		}
		s.allow("kubectl get")
	case "describe", "logs", "top", "explain", "api-resources", "api-versions", "version", "cluster-info", "diff",
		"events", "wait", "port-forward", "proxy", "completion", "plugin", "kustomize", "auth":
		if verb == "describe" && secretObj {
			s.esc(vocab.CredentialProbing, low, "`"+c.text+"` describes Kubernetes secrets")
			return
		}
		if verb == "proxy" && shell.HasLong(c.args, "address") {
			s.esc(vocab.Exfiltration, medium, "`"+c.text+"` exposes the cluster API")
			return
		}
		s.allow("kubectl " + verb)
	case "config":
		if len(rest) > 1 {
			switch rest[1] {
			case "view":
				if shell.HasLong(rest, "raw") || shell.HasLong(rest, "flatten") {
					s.esc(vocab.CredentialProbing, high, "`"+c.text+"` prints the cluster credentials")
					return
				}
				s.allow("kubectl config view")
				return
			case "current-context", "get-contexts", "get-clusters", "get-users", "use-context", "use":
				s.allow("kubectl config " + rest[1])
				return
			}
		}
		s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` changes the cluster configuration")
	case "rollout":
		if len(rest) > 1 && (rest[1] == "status" || rest[1] == "history") {
			s.allow("kubectl rollout " + rest[1])
			return
		}
		s.esc(vocab.Destructive, medium, "`"+c.text+"` changes a deployment")
	case "create":
		if obj == "clusterrolebinding" || obj == "rolebinding" {
			for _, r := range shell.OptValues(rest, "", "clusterrole") {
				if r == "cluster-admin" || r == "admin" {
					s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` grants "+r)
					return
				}
			}
		}
		s.esc(vocab.Routine, medium, "`"+c.text+"` changes the cluster")
	case "delete":
		s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes cluster resources")
	case "exec", "cp", "attach", "debug", "run":
		s.esc(vocab.Routine, medium, "`"+c.text+"` runs or copies in a container")
	default:
		s.esc(vocab.Routine, medium, "`"+c.text+"` changes the cluster (kubectl "+verb+")")
	}
}

// kubectlDryRun reports whether kubectl's words ask for a dry run
// (--dry-run=client or server, or the old --dry-run alone), which
// changes nothing in the cluster.
func kubectlDryRun(args []string) bool {
	for _, a := range args {
		switch a {
		case "--dry-run", "--dry-run=client", "--dry-run=server", "--dry-run=true":
			return true
		}
	}
	return false
}

// decodedLater reports whether c's output is decoded (base64 -d,
// base64d) later in its pipeline.
func (s *sh) decodedLater(c *cmd) bool {
	if c.sc.Pipeline == 0 {
		return false
	}
	for i := range s.cmds {
		d := &s.cmds[i]
		if d.sc.Pipeline != c.sc.Pipeline || d.sc.Stage <= c.sc.Stage {
			continue
		}
		if d.name == "base64" && (shell.HasShort(d.args, 'd', "w") || shell.HasLong(d.args, "decode")) || strings.Contains(strings.Join(d.args, " "), "base64d") {
			return true
		}
	}
	return false
}

func judgeHelm(s *sh, c *cmd) {
	i := sub(c.args, "-n", "--namespace", "--kube-context", "--kubeconfig")
	if i >= len(c.args) {
		s.allow("helm")
		return
	}
	switch v := c.args[i]; v {
	case "template", "lint", "list", "ls", "status", "get", "show", "inspect", "search", "version", "history",
		"dependency", "dep", "env", "verify", "package", "pull", "fetch", "create", "completion":
		s.allow("helm " + v)
	case "repo":
		if i+1 < len(c.args) && (c.args[i+1] == "list" || c.args[i+1] == "update") {
			s.allow("helm repo")
			return
		}
		s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` adds a chart repository")
	case "uninstall", "delete", "rollback":
		s.esc(vocab.Destructive, medium, "`"+c.text+"` removes or rolls back a release")
	default:
		s.esc(vocab.Routine, medium, "`"+c.text+"` changes a cluster (helm "+v+")")
	}
}

func judgeTerraform(s *sh, c *cmd) {
	i := sub(c.args, "-chdir")
	if i >= len(c.args) {
		s.allow(c.name)
		return
	}
	switch v := c.args[i]; v {
	case "fmt", "validate", "plan", "show", "init", "providers", "version", "graph", "output", "get", "console", "preview", "test", "workspace",
		"hclfmt", "validate-inputs", "terragrunt-info", "graph-dependencies", "hclvalidate":
		if v == "show" && shell.HasWord(c.args, "-json") {
			s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` prints the state as JSON, sensitive values included")
			return
		}
		if v == "output" && terraformSecretOutput(c.args[i+1:]) {
			s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` prints outputs, sensitive ones included")
			return
		}
		if v == "workspace" && shell.HasWord(c.args, "delete") {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes a workspace")
			return
		}
		s.allow(c.name + " " + v)
	case "state":
		if i+1 < len(c.args) && (c.args[i+1] == "list" || c.args[i+1] == "show") {
			s.allow(c.name + " state")
			return
		}
		s.esc(vocab.Destructive, medium, "`"+c.text+"` rewrites the infrastructure state")
	case "destroy":
		s.esc(vocab.Destructive, high, "`"+c.text+"` destroys infrastructure")
	default:
		s.esc(vocab.Routine, medium, "`"+c.text+"` changes infrastructure ("+c.name+" "+v+")")
	}
}

// pipedIntoLogin reports whether c's output goes into a registry login
// that reads its password from standard input (docker login
// --password-stdin) in the same pipeline.
func (s *sh) pipedIntoLogin(c *cmd) bool {
	if c.sc == nil || c.sc.Pipeline == 0 {
		return false
	}
	for i := range s.cmds {
		d := &s.cmds[i]
		if d.sc == nil || d.sc.Pipeline != c.sc.Pipeline || d.sc.Stage != c.sc.Stage+1 || len(d.args) < 2 {
			continue
		}
		if shell.HasWord(d.args, "login") && shell.HasLong(d.args, "password-stdin") {
			return true
		}
	}
	return false
}

// terraformSecretOutput reports whether `terraform output ARGS` can print
// sensitive values: -json and -raw print them in clear, and so does an
// output named like a secret.
func terraformSecretOutput(args []string) bool {
	for _, a := range args {
		switch {
		case a == "-json" || a == "--json" || a == "-raw" || a == "--raw" || strings.HasPrefix(a, "-json=") || strings.HasPrefix(a, "-raw="):
			return true
		case !strings.HasPrefix(a, "-") && (secret.IsVarName(a) || strings.Contains(strings.ToLower(a), "password") ||
			strings.Contains(strings.ToLower(a), "secret") || strings.Contains(strings.ToLower(a), "token") ||
			strings.Contains(strings.ToLower(a), "key") || strings.Contains(strings.ToLower(a), "credential") ||
			strings.Contains(strings.ToLower(a), "kubeconfig") || strings.Contains(strings.ToLower(a), "connection_string")):
			return true
		}
	}
	return false
}

// cloudReadVerbs are the verbs of cloud CLIs that only read.
var cloudReadVerb = pattern.Lazy(`^(describe|list|get|show|ls|head|wait|version|help|info|whoami|status|account|current|query|lookup|search|check|estimate|preview|simulate|validate|test|print-settings)(-|$)`)

func judgeCloud(s *sh, c *cmd) {
	var ops []string
	for i := 1; i < len(c.args); i++ {
		a := c.args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && i+1 < len(c.args) && !strings.HasPrefix(c.args[i+1], "-") && len(ops) >= 2 {
				i++
			}
			continue
		}
		ops = append(ops, a)
		if len(ops) == 3 {
			break
		}
	}
	line := strings.Join(ops, " ")
	switch {
	case line == "sts get-caller-identity" || strings.HasPrefix(line, "configure list") || line == "auth list" ||
		strings.HasPrefix(line, "config list") || strings.HasPrefix(line, "config get") || line == "account show":
		s.allow(c.name + " " + line)
		return
	case strings.HasPrefix(line, "configure export-credentials") || strings.HasPrefix(line, "configure get") && credentialSearch(strings.Join(c.args, " ")) ||
		strings.HasPrefix(line, "auth print-access-token") || strings.HasPrefix(line, "auth print-identity-token") ||
		strings.HasPrefix(line, "account get-access-token") || strings.HasPrefix(line, "auth application-default print-access-token"):
		s.deny(vocab.CredentialProbing, "`"+c.text+"` prints cloud credentials")
		return
	case strings.HasPrefix(line, "sts get-session-token") || strings.HasPrefix(line, "sts assume-role") || strings.HasPrefix(line, "sts get-federation-token") ||
		strings.HasSuffix(line, "get-login-password") || strings.HasPrefix(line, "acr login") && shell.HasLong(c.args, "expose-token"):
		// Temporary credentials: routine when they go straight into a
		// registry login, not when they are printed.
		if !s.pipedIntoLogin(c) {
			s.esc(vocab.CredentialProbing, high, "`"+c.text+"` prints temporary cloud credentials")
			return
		}
		s.allow(c.name + " " + line)
		return
	case strings.Contains(line, "secretsmanager get-secret-value") || strings.Contains(line, "ssm get-parameter") && shell.HasLong(c.args, "with-decryption") ||
		strings.Contains(line, "secrets versions access") || strings.Contains(line, "keyvault secret show") || strings.Contains(line, "get-password-data"):
		s.esc(vocab.CredentialProbing, high, "`"+c.text+"` reads a stored secret")
		return
	case strings.HasPrefix(line, "iam") || strings.Contains(line, " iam ") || strings.Contains(line, "add-iam-policy-binding") ||
		strings.Contains(line, "role assignment") || strings.Contains(line, "service-accounts keys"):
		if len(ops) > 1 && cloudReadVerb.MatchString(ops[len(ops)-1]) || len(ops) > 1 && cloudReadVerb.MatchString(ops[1]) {
			s.allow(c.name + " " + line)
			return
		}
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` changes cloud identities or permissions")
		return
	case c.name == "gsutil" || strings.HasPrefix(line, "s3 ") || strings.HasPrefix(line, "storage "):
		verb := ""
		if c.name == "gsutil" && len(ops) > 0 {
			verb = ops[0]
		} else if len(ops) > 1 {
			verb = ops[1]
		}
		switch verb {
		case "ls", "du", "stat", "cat":
			s.allow(c.name + " " + line)
		case "cp", "mv", "sync", "rsync":
			s.esc(vocab.Exfiltration, medium, "`"+c.text+"` copies data to or from cloud storage")
		case "rm", "rb":
			s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes cloud storage")
		default:
			s.esc(vocab.Routine, medium, "`"+c.text+"` changes cloud storage")
		}
		return
	}
	for _, o := range ops[min(1, len(ops)):] {
		if cloudReadVerb.MatchString(o) {
			s.allow(c.name + " " + line)
			return
		}
	}
	s.esc(vocab.Routine, medium, "`"+c.text+"` changes cloud resources")
}

// SQL.

var (
	sqlRead    = pattern.Lazy(`(?is)^\s*(select|show|explain|describe|desc|with|values|table|pragma|\\d|\\l|\\dt|\\du|\\di|\\dn|\\x|\\timing|\.tables|\.schema|\.indexes|\.headers|\.mode)\b`)
	sqlWrite   = pattern.Lazy(`(?i)\b(insert|update|delete|merge|upsert|create|alter|grant|revoke|copy|vacuum|reindex|lock|call|do|set\s+role|attach)\b`)
	sqlDestroy = pattern.Lazy(`(?i)\b(drop|truncate)\b|\bdelete\s+from\s+\w+\s*(;|$)`)
)

// judgeSQLText judges SQL: reads are routine, destroying data or schemas
// is passed on, like other writes (whether the database is a throw-away
// one is a matter of context).
func judgeSQLText(sql string) finding {
	for _, stmt := range strings.Split(sql, ";") {
		stmt = strings.TrimSpace(stmt)
		if stmt == "" {
			continue
		}
		switch {
		case sqlDestroy.MatchString(stmt):
			return finding{vocab.Escalate, vocab.Destructive, high, "drops or empties database objects: " + textcut.Shorten(stmt, 80)}
		case sqlRead.MatchString(stmt) && !sqlWrite.MatchString(stmt):
		case sqlWrite.MatchString(stmt):
			return finding{vocab.Escalate, vocab.Routine, medium, "changes the database: " + textcut.Shorten(stmt, 80)}
		default:
			return finding{vocab.Escalate, vocab.Routine, low, "runs SQL the first pass does not recognise: " + textcut.Shorten(stmt, 80)}
		}
	}
	return finding{vocab.Allow, vocab.Routine, low, "reads the database"}
}

func judgeSQL(s *sh, c *cmd) {
	var sqls []string
	switch c.name {
	case "psql", "mysql", "mariadb", "clickhouse-client", "cqlsh":
		sqls = append(shell.OptValues(c.args, "-c", "command"), shell.OptValues(c.args, "-e", "execute")...)
		sqls = append(sqls, shell.OptValues(c.args, "-q", "query")...)
		for _, f := range shell.OptValues(c.args, "-f", "file") {
			s.read(c, f, false)
			sqls = append(sqls, "-- file")
		}
	case "sqlite3", "duckdb":
		ops := shell.Operands(c.args, "")
		if len(ops) > 1 {
			sqls = ops[1:]
		}
		if len(ops) > 0 {
			pl := s.where(ops[0], c.cwd)
			if pl.zone == zWork || pl.zone == zTmp || ops[0] == ":memory:" {
				s.allow(c.name + " on a database of the workspace")
				return
			}
			if pl.zone != zWork && pl.zone != zTmp && ops[0] != ":memory:" {
				if level, what := s.secret(pl); level > secret.None || secret.IsBrowserStore(strings.ToLower(pl.abs), strings.ToLower(shortBase(pl.abs))) {
					s.deny(vocab.CredentialProbing, "`"+c.text+"` opens "+what)
					return
				}
				s.esc(vocab.Routine, low, "`"+c.text+"` opens a database outside the workspace")
			}
		}
	case "redis-cli":
		if shell.HasWord(c.args, "FLUSHALL", "flushall", "FLUSHDB", "flushdb", "DEL", "del", "CONFIG", "config", "SHUTDOWN", "shutdown") {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` changes or empties Redis")
			return
		}
		s.allow("redis-cli")
		return
	case "mongosh", "mongo":
		for _, e := range shell.OptValues(c.args, "", "eval") {
			if strings.Contains(e, "drop") || strings.Contains(e, "delete") || strings.Contains(e, "remove") {
				s.esc(vocab.Destructive, medium, "`"+c.text+"` drops or deletes data")
				return
			}
		}
	}
	if len(sqls) == 0 {
		if c.sc.Pipeline > 0 || c.name == "sqlite3" {
			s.esc(vocab.Routine, low, "`"+c.text+"` runs SQL the first pass cannot see")
			return
		}
		s.esc(vocab.Routine, low, "`"+c.text+"` opens an interactive database session")
		return
	}
	for _, q := range sqls {
		if q == "-- file" {
			s.esc(vocab.Routine, low, "`"+c.text+"` runs a SQL file")
			continue
		}
		f := judgeSQLText(q)
		f.reason = "`" + c.text + "` " + f.reason
		s.v.add(f)
	}
}

func judgeOpenssl(s *sh, c *cmd) {
	if len(c.args) < 2 {
		s.esc(vocab.Routine, low, "`"+c.text+"` starts an interactive openssl")
		return
	}
	in := shell.OptValues(c.args, "-in", "")
	switch v := c.args[1]; v {
	case "x509", "req", "verify", "crl", "version", "s_client", "ciphers", "dgst", "rand", "list", "help", "speed", "asn1parse", "sess_id", "ocsp", "passwd", "prime", "errstr":
		if v == "x509" || v == "req" || v == "verify" {
			for _, f := range in {
				s.read(c, f, false)
			}
		}
		for _, o := range shell.OptValues(c.args, "-out", "") {
			s.write(c, s.where(o, c.cwd), "")
		}
		s.allow("openssl " + v)
	case "genrsa", "genpkey", "ecparam":
		for _, o := range shell.OptValues(c.args, "-out", "") {
			s.write(c, s.where(o, c.cwd), "")
		}
		s.allow("openssl " + v)
	case "rsa", "pkey", "ec", "pkcs12", "pkcs8", "dsa":
		if shell.HasWord(c.args, "-pubout") && !shell.HasWord(c.args, "-text") {
			s.allow("openssl " + v + " -pubout")
			return
		}
		s.esc(vocab.CredentialProbing, high, "`"+c.text+"` reads a private key")
	case "enc", "smime", "cms", "pkeyutl", "rsautl":
		for _, f := range in {
			pl := s.where(f, c.cwd)
			if pl.zone != zWork && pl.zone != zTmp {
				s.esc(vocab.Destructive, medium, "`"+c.text+"` encrypts or decrypts files outside the workspace")
				return
			}
		}
		s.esc(vocab.CredentialProbing, low, "`"+c.text+"` encrypts or decrypts data")
	default:
		s.esc(vocab.Routine, low, "`"+c.text+"`: openssl "+v+" is not a command the first pass knows")
	}
}

func judgeSSHKeygen(s *sh, c *cmd) {
	switch {
	case shell.HasShort(c.args, 'p', "tbfCNPEFmnOrsVwzZIJKLMa") || shell.HasShort(c.args, 'e', "tbfCNPEFmnOrsVwzZIJKLMa"):
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` changes or exports a private key")
	case shell.HasShort(c.args, 'y', "tbfCNPEFmnOrsVwzZIJKLMa"), shell.HasShort(c.args, 'l', "tbfCNPEFmnOrsVwzZIJKLMa"),
		shell.HasShort(c.args, 'F', "tbfCNPEmnOrsVwzZIJKLMa"), shell.HasShort(c.args, 'R', "tbfCNPEFmnOrsVwzZIJKLMa"):
		s.allow("ssh-keygen")
	default:
		for _, f := range shell.OptValues(c.args, "-f", "") {
			pl := s.where(f, c.cwd)
			if level, _ := s.secret(pl); level == secret.Critical && (pl.zone == zHome || pl.zone == zWork) {
				// Overwriting an existing default key loses it; a named
				// new key is fine.
				if secret.IsPrivateKeyName(strings.ToLower(shortBase(f))) {
					s.esc(vocab.Destructive, medium, "`"+c.text+"` may overwrite the default SSH key")
					return
				}
			}
			// The new key and its .pub land where -f says (SPEC G15:
			// in the home directory, that is not routine).
			s.write(c, pl, "")
		}
		s.allow("ssh-keygen")
	}
}

func judgeSSHAdd(s *sh, c *cmd) {
	if shell.HasShort(c.args, 'D', "") || shell.HasShort(c.args, 'd', "") || shell.HasShort(c.args, 'x', "") {
		s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` changes the SSH agent")
		return
	}
	s.allow("ssh-add")
}

func judgeGpg(s *sh, c *cmd) {
	switch {
	case shell.HasLong(c.args, "export-secret-keys", "export-secret-subkeys"):
		s.deny(vocab.CredentialProbing, "`"+c.text+"` exports secret keys")
	case shell.HasLong(c.args, "decrypt") || shell.HasShort(c.args, 'd', "orusf"):
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` decrypts data")
	case shell.HasLong(c.args, "symmetric", "encrypt") || shell.HasShort(c.args, 'c', "orusf") || shell.HasShort(c.args, 'e', "orusf"):
		for _, p := range shell.Operands(c.args, "orusf", "output", "recipient", "local-user", "passphrase", "passphrase-fd", "cipher-algo") {
			pl := s.where(p, c.cwd)
			if pl.zone != zWork && pl.zone != zTmp {
				s.esc(vocab.Destructive, medium, "`"+c.text+"` encrypts files outside the workspace")
				return
			}
		}
		s.allow("gpg encrypt")
	case shell.HasLong(c.args, "delete-secret-keys", "delete-keys", "delete-secret-and-public-key"):
		s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes keys")
	default:
		s.allow("gpg")
	}
}

func judgeSecretTool(s *sh, c *cmd) {
	switch c.name {
	case "security":
		if len(c.args) > 1 && (strings.HasPrefix(c.args[1], "find-") && strings.HasSuffix(c.args[1], "-password") && shell.HasShort(c.args, 'w', "agcslr") ||
			c.args[1] == "dump-keychain" || c.args[1] == "export") {
			s.deny(vocab.CredentialProbing, "`"+c.text+"` reads passwords from the keychain")
			return
		}
		if len(c.args) > 1 && (c.args[1] == "list-keychains" || c.args[1] == "find-certificate" || c.args[1] == "verify-cert") {
			s.allow("security")
			return
		}
	case "sops", "age", "kubeseal":
		if shell.HasShort(c.args, 'd', "") || shell.HasLong(c.args, "decrypt") {
			s.esc(vocab.CredentialProbing, high, "`"+c.text+"` decrypts secrets")
			return
		}
		s.allow(c.name)
		return
	}
	s.esc(vocab.CredentialProbing, high, "`"+c.text+"` reads or changes a secret store")
}

func judgeApt(s *sh, c *cmd) {
	i := sub(c.args, "-o", "-c", "-t", "--target-release")
	if i >= len(c.args) {
		s.allow(c.name)
		return
	}
	v := c.args[i]
	switch v {
	case "list", "search", "show", "info", "policy", "depends", "rdepends", "madison", "showpkg", "-l", "-L", "-s",
		"-q", "-qa", "-qi", "-ql", "--list", "outdated", "leaves", "deps", "uses", "desc", "doctor", "config",
		"provides", "repolist", "history", "check-update", "query", "-Q", "-Qi", "-Ql", "-Ss", "-Si", "status", "--version", "version":
		s.allow(c.name + " " + v)
	case "remove", "purge", "autoremove", "erase", "uninstall", "-R", "-Rs", "-Rns", "del", "-e", "--purge", "-r":
		s.esc(vocab.Destructive, medium, "`"+c.text+"` removes system packages")
	case "update", "-Sy", "makecache", "refresh":
		s.esc(vocab.Routine, low, "`"+c.text+"` refreshes the system's package lists")
	default:
		s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` installs or changes system packages")
	}
}
