package program

import (
	"strings"

	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = judge.RegisterJudges(map[string]func(*judge.Script, *judge.Command){
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

func judgeDocker(s *judge.Script, c *judge.Command) {
	i, ok := subcommand(s, c.Args, c.Name, "-H", "--host", "--context", "-c", "--config", "--log-level")
	if !ok {
		return
	}
	rest := c.Args[i:]
	v := rest[0]
	if v == "compose" || v == "container" || v == "image" || v == "volume" || v == "network" || v == "system" ||
		v == "builder" || v == "buildx" || v == "context" || v == "plugin" {
		j := judge.Sub(rest, "-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory")
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
		s.Allow(c.Name + " " + v)
	case "build", "buildx build", "image build", "pull", "image pull", "compose build", "compose pull", "tag", "image tag",
		"save", "load", "image save", "image load", "create", "compose create", "compose start", "compose stop",
		"compose restart", "start", "stop", "restart", "pause", "unpause", "kill", "wait", "rename", "attach",
		"container stop", "container start", "container restart", "network create", "compose up", "commit", "cp",
		"container prune", "image prune", "builder prune", "buildx prune", "network prune", "rm", "rmi", "container rm",
		"image rm", "compose rm", "volume create", "context use", "buildx create", "buildx use":
		if strings.HasSuffix(v, "prune") && (shell.HasLong(rest, "volumes") || shell.HasShort(rest, 'v', "")) {
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes data volumes")
			return
		}
		if v == "compose up" {
			s.Allow(c.Name + " compose up")
			return
		}
		if v == "cp" {
			// docker cp SRC CONTAINER:DST: a local source leaves the
			// machine's boundary for the container (and its image).
			for _, o := range shell.Operands(rest, "") {
				if strings.Contains(o, ":") {
					continue
				}
				if l, what := s.Secret(s.Where(o, c.Cwd)); l > secret.None {
					s.Esc(vocab.Exfiltration, judge.High, "`"+c.Text+"` copies "+what+" into a container")
					return
				}
			}
		}
		if v == "rm" || v == "rmi" || v == "container rm" || v == "image rm" {
			for k := i; k < len(c.Args); k++ {
				if !c.Known[k] && !strings.HasPrefix(c.Args[k], "-") {
					s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` removes containers or images that are not known before it runs (possibly all of them)")
					return
				}
			}
		}
		if v == "compose rm" && (shell.HasShort(rest, 'v', "") || shell.HasLong(rest, "volumes")) || (v == "rm" || v == "container rm") && shell.HasShort(rest, 'v', "") {
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes data volumes")
			return
		}
		s.Allow(c.Name + " " + v)
	case "system prune":
		if shell.HasLong(rest, "volumes") {
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes data volumes")
			return
		}
		s.Allow(c.Name + " system prune")
	case "compose down":
		if shell.HasShort(rest, 'v', "") || shell.HasLong(rest, "volumes") {
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes the project's data volumes")
			return
		}
		s.Allow(c.Name + " compose down")
	case "volume rm", "volume prune":
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes data volumes")
	case "run", "container run", "compose run", "create-run":
		dockerRun(s, c, rest)
	case "exec", "container exec", "compose exec":
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs a command in a container")
	case "login":
		if shell.HasLong(rest, "password-stdin") || !shell.HasShort(rest, 'p', "u") && !shell.HasLong(rest, "password") {
			s.Allow("docker login")
			return
		}
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` puts a password on the command line")
	case "push", "image push", "compose push", "buildx imagetools":
		s.Esc(vocab.Exfiltration, judge.Low, "`"+c.Text+"` publishes an image")
	default:
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"`: "+c.Name+" "+v+" is not a subcommand the first pass knows")
	}
}

// dockerRun judges starting a container: privileges, host mounts, host
// namespaces and published ports decide.
func dockerRun(s *judge.Script, c *judge.Command, rest []string) {
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
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` runs a privileged container")
			risky = "privileged"
		case "--pid", "--network", "--net", "--ipc", "--uts", "--userns":
			if strings.HasPrefix(val, "host") {
				s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` shares the host's "+strings.TrimPrefix(name, "--")+" namespace")
				risky = "host"
			}
		case "--cap-add", "--security-opt", "--device":
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` gives the container extra privileges ("+name+")")
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
			pl := s.Where(src, c.Cwd)
			switch {
			case s.BroadPath(pl) != "" || strings.HasSuffix(pl.Abs, "docker.sock") || pl.Zone == judge.ZSystem && judge.CriticalSystemPath(pl.Abs):
				s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` mounts "+src+" of the host into the container")
				risky = "mount"
			case pl.Zone == judge.ZWork || pl.Zone == judge.ZTmp:
			default:
				if level, what := s.Secret(pl); level > secret.None {
					s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` mounts "+what+" into the container")
				} else {
					s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` mounts "+src+" into the container")
				}
			}
		case "-p", "--publish":
			if strings.HasPrefix(val, "0.0.0.0:") || strings.HasPrefix(val, "[::]:") {
				s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` publishes a port on every network interface")
			}
		case "-e", "--env":
			if strings.Contains(strings.ToUpper(val), "AUTH_METHOD=TRUST") || strings.Contains(strings.ToUpper(val), "ALLOW_EMPTY_PASSWORD") {
				s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` starts a service without authentication")
			}
		}
	}
	if risky == "" {
		s.Allow("runs a container")
	}
}

func judgeKubectl(s *judge.Script, c *judge.Command) {
	if shell.HasLong(c.Args, "token") {
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` puts a token on the command line")
	}
	i, ok := subcommand(s, c.Args, "kubectl", "-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server", "--token")
	if !ok {
		return
	}
	rest := c.Args[i:]
	verb := rest[0]
	obj := ""
	if j := judge.Sub(rest, "-n", "--namespace", "-o", "--output", "-l", "--selector", "--context"); j < len(rest) {
		obj = strings.ToLower(rest[j])
	}
	secretObj := strings.HasPrefix(obj, "secret") || strings.HasPrefix(obj, "secrets/") || obj == "sa" || strings.HasPrefix(obj, "serviceaccount")
	if kubectlDryRun(rest) {
		switch verb {
		case "apply", "create", "replace", "patch", "delete", "label", "annotate", "scale", "expose", "set", "run", "autoscale":
			// --dry-run=client or =server: the cluster is not changed.
			s.Allow("kubectl " + verb + " --dry-run")
			return
		}
	}
	switch verb {
	case "get":
		out := strings.Join(shell.OptValues(rest, "-o", "output"), ",")
		if strings.HasPrefix(obj, "secret") {
			if out != "" && out != "name" && out != "wide" {
				c.Out, c.OutWhat = secret.Critical, "Kubernetes secrets"
				if decodedLater(s, c) || shell.HasShort(rest, 'A', "nol") || shell.HasLong(rest, "all-namespaces") {
					s.Deny(vocab.CredentialProbing, "`"+c.Text+"` dumps and decodes Kubernetes secrets")
					return
				}
				s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` prints Kubernetes secrets")
				return
			}
			s.Esc(vocab.CredentialProbing, judge.Low, "`"+c.Text+"` lists Kubernetes secrets")
			return
		}
		s.Allow("kubectl get")
	case "describe", "logs", "top", "explain", "api-resources", "api-versions", "version", "cluster-info", "diff",
		"events", "wait", "port-forward", "proxy", "completion", "plugin", "kustomize", "auth":
		if verb == "describe" && secretObj {
			s.Esc(vocab.CredentialProbing, judge.Low, "`"+c.Text+"` describes Kubernetes secrets")
			return
		}
		if verb == "proxy" && shell.HasLong(c.Args, "address") {
			s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` exposes the cluster API")
			return
		}
		s.Allow("kubectl " + verb)
	case "config":
		if len(rest) > 1 {
			switch rest[1] {
			case "view":
				if shell.HasLong(rest, "raw") || shell.HasLong(rest, "flatten") {
					s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` prints the cluster credentials")
					return
				}
				s.Allow("kubectl config view")
				return
			case "current-context", "get-contexts", "get-clusters", "get-users", "use-context", "use":
				s.Allow("kubectl config " + rest[1])
				return
			}
		}
		s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` changes the cluster configuration")
	case "rollout":
		if len(rest) > 1 && (rest[1] == "status" || rest[1] == "history") {
			s.Allow("kubectl rollout " + rest[1])
			return
		}
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` changes a deployment")
	case "create":
		if obj == "clusterrolebinding" || obj == "rolebinding" {
			for _, r := range shell.OptValues(rest, "", "clusterrole") {
				if r == "cluster-admin" || r == "admin" {
					s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` grants "+r)
					return
				}
			}
		}
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` changes the cluster")
	case "delete":
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes cluster resources")
	case "exec", "cp", "attach", "debug", "run":
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs or copies in a container")
	default:
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` changes the cluster (kubectl "+verb+")")
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
func decodedLater(s *judge.Script, c *judge.Command) bool {
	if c.Sc.Pipeline == 0 {
		return false
	}
	for i := range s.Cmds {
		d := &s.Cmds[i]
		if d.Sc.Pipeline != c.Sc.Pipeline || d.Sc.Stage <= c.Sc.Stage {
			continue
		}
		if d.Name == "base64" && (shell.HasShort(d.Args, 'd', "w") || shell.HasLong(d.Args, "decode")) || strings.Contains(strings.Join(d.Args, " "), "base64d") {
			return true
		}
	}
	return false
}

func judgeHelm(s *judge.Script, c *judge.Command) {
	i, ok := subcommand(s, c.Args, "helm", "-n", "--namespace", "--kube-context", "--kubeconfig")
	if !ok {
		return
	}
	switch v := c.Args[i]; v {
	case "template", "lint", "list", "ls", "status", "get", "show", "inspect", "search", "version", "history",
		"dependency", "dep", "env", "verify", "package", "pull", "fetch", "create", "completion":
		s.Allow("helm " + v)
	case "repo":
		if i+1 < len(c.Args) && (c.Args[i+1] == "list" || c.Args[i+1] == "update") {
			s.Allow("helm repo")
			return
		}
		s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` adds a chart repository")
	case "uninstall", "delete", "rollback":
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` removes or rolls back a release")
	default:
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` changes a cluster (helm "+v+")")
	}
}

func judgeTerraform(s *judge.Script, c *judge.Command) {
	i, ok := subcommand(s, c.Args, c.Name, "-chdir")
	if !ok {
		return
	}
	switch v := c.Args[i]; v {
	case "fmt", "validate", "plan", "show", "init", "providers", "version", "graph", "output", "get", "console", "preview", "test", "workspace",
		"hclfmt", "validate-inputs", "terragrunt-info", "graph-dependencies", "hclvalidate":
		if v == "show" && shell.HasWord(c.Args, "-json") {
			s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` prints the state as JSON, sensitive values included")
			return
		}
		if v == "output" && terraformSecretOutput(c.Args[i+1:]) {
			s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` prints outputs, sensitive ones included")
			return
		}
		if v == "workspace" && shell.HasWord(c.Args, "delete") {
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes a workspace")
			return
		}
		s.Allow(c.Name + " " + v)
	case "state":
		if i+1 < len(c.Args) && (c.Args[i+1] == "list" || c.Args[i+1] == "show") {
			s.Allow(c.Name + " state")
			return
		}
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` rewrites the infrastructure state")
	case "destroy":
		s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` destroys infrastructure")
	default:
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` changes infrastructure ("+c.Name+" "+v+")")
	}
}

// pipedIntoLogin reports whether c's output goes into a registry login
// that reads its password from standard input (docker login
// --password-stdin) in the same pipeline.
func pipedIntoLogin(s *judge.Script, c *judge.Command) bool {
	if c.Sc == nil || c.Sc.Pipeline == 0 {
		return false
	}
	for i := range s.Cmds {
		d := &s.Cmds[i]
		if d.Sc == nil || d.Sc.Pipeline != c.Sc.Pipeline || d.Sc.Stage != c.Sc.Stage+1 || len(d.Args) < 2 {
			continue
		}
		if shell.HasWord(d.Args, "login") && shell.HasLong(d.Args, "password-stdin") {
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

// CloudReadVerb matches the verbs of cloud CLIs that only read.
var CloudReadVerb = pattern.Lazy(`^(describe|list|get|show|ls|head|wait|version|help|info|whoami|status|account|current|query|lookup|search|check|estimate|preview|simulate|validate|test|print-settings)(-|$)`)

func judgeCloud(s *judge.Script, c *judge.Command) {
	var ops []string
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && i+1 < len(c.Args) && !strings.HasPrefix(c.Args[i+1], "-") && len(ops) >= 2 {
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
		s.Allow(c.Name + " " + line)
		return
	case strings.HasPrefix(line, "configure export-credentials") || strings.HasPrefix(line, "configure get") && credentialSearch(strings.Join(c.Args, " ")) ||
		strings.HasPrefix(line, "auth print-access-token") || strings.HasPrefix(line, "auth print-identity-token") ||
		strings.HasPrefix(line, "account get-access-token") || strings.HasPrefix(line, "auth application-default print-access-token"):
		s.Deny(vocab.CredentialProbing, "`"+c.Text+"` prints cloud credentials")
		return
	case strings.HasPrefix(line, "sts get-session-token") || strings.HasPrefix(line, "sts assume-role") || strings.HasPrefix(line, "sts get-federation-token") ||
		strings.HasSuffix(line, "get-login-password") || strings.HasPrefix(line, "acr login") && shell.HasLong(c.Args, "expose-token"):
		// Temporary credentials: routine when they go straight into a
		// registry login, not when they are printed.
		if !pipedIntoLogin(s, c) {
			s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` prints temporary cloud credentials")
			return
		}
		s.Allow(c.Name + " " + line)
		return
	case strings.Contains(line, "secretsmanager get-secret-value") || strings.Contains(line, "ssm get-parameter") && shell.HasLong(c.Args, "with-decryption") ||
		strings.Contains(line, "secrets versions access") || strings.Contains(line, "keyvault secret show") || strings.Contains(line, "get-password-data"):
		s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` reads a stored secret")
		return
	case strings.HasPrefix(line, "iam") || strings.Contains(line, " iam ") || strings.Contains(line, "add-iam-policy-binding") ||
		strings.Contains(line, "role assignment") || strings.Contains(line, "service-accounts keys"):
		if len(ops) > 1 && CloudReadVerb.MatchString(ops[len(ops)-1]) || len(ops) > 1 && CloudReadVerb.MatchString(ops[1]) {
			s.Allow(c.Name + " " + line)
			return
		}
		s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` changes cloud identities or permissions")
		return
	case c.Name == "gsutil" || strings.HasPrefix(line, "s3 ") || strings.HasPrefix(line, "storage "):
		verb := ""
		if c.Name == "gsutil" && len(ops) > 0 {
			verb = ops[0]
		} else if len(ops) > 1 {
			verb = ops[1]
		}
		switch verb {
		case "ls", "du", "stat", "cat":
			s.Allow(c.Name + " " + line)
		case "cp", "mv", "sync", "rsync":
			s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` copies data to or from cloud storage")
		case "rm", "rb":
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes cloud storage")
		default:
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` changes cloud storage")
		}
		return
	}
	for _, o := range ops[min(1, len(ops)):] {
		if CloudReadVerb.MatchString(o) {
			s.Allow(c.Name + " " + line)
			return
		}
	}
	s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` changes cloud resources")
}

// SQL.

var (
	SqlRead    = pattern.Lazy(`(?is)^\s*(select|show|explain|describe|desc|with|values|table|pragma|\\d|\\l|\\dt|\\du|\\di|\\dn|\\x|\\timing|\.tables|\.schema|\.indexes|\.headers|\.mode)\b`)
	SqlWrite   = pattern.Lazy(`(?i)\b(insert|update|delete|merge|upsert|create|alter|grant|revoke|copy|vacuum|reindex|lock|call|do|set\s+role|attach)\b`)
	SqlDestroy = pattern.Lazy(`(?i)\b(drop|truncate)\b|\bdelete\s+from\s+\w+\s*(;|$)`)
)

// JudgeSQLText judges SQL: reads are routine, destroying data or schemas
// is passed on, like other writes (whether the database is a throw-away
// one is a matter of context).
func JudgeSQLText(sql string) judge.Finding {
	for _, stmt := range strings.Split(sql, ";") {
		stmt = strings.TrimSpace(stmt)
		if stmt == "" {
			continue
		}
		switch {
		case SqlDestroy.MatchString(stmt):
			return judge.Finding{Dec: vocab.Escalate, Class: vocab.Destructive, Risk: judge.High, Reason: "drops or empties database objects: " + textcut.Shorten(stmt, 80)}
		case SqlRead.MatchString(stmt) && !SqlWrite.MatchString(stmt):
		case SqlWrite.MatchString(stmt):
			return judge.Finding{Dec: vocab.Escalate, Class: vocab.Routine, Risk: judge.Medium, Reason: "changes the database: " + textcut.Shorten(stmt, 80)}
		default:
			return judge.Finding{Dec: vocab.Escalate, Class: vocab.Routine, Risk: judge.Low, Reason: "runs SQL the first pass does not recognise: " + textcut.Shorten(stmt, 80)}
		}
	}
	return judge.Finding{Dec: vocab.Allow, Class: vocab.Routine, Risk: judge.Low, Reason: "reads the database"}
}

func judgeSQL(s *judge.Script, c *judge.Command) {
	var sqls []string
	switch c.Name {
	case "psql", "mysql", "mariadb", "clickhouse-client", "cqlsh":
		sqls = append(shell.OptValues(c.Args, "-c", "command"), shell.OptValues(c.Args, "-e", "execute")...)
		sqls = append(sqls, shell.OptValues(c.Args, "-q", "query")...)
		for _, f := range shell.OptValues(c.Args, "-f", "file") {
			s.Read(c, f, false)
			sqls = append(sqls, "-- file")
		}
	case "sqlite3", "duckdb":
		ops := shell.Operands(c.Args, "")
		if len(ops) > 1 {
			sqls = ops[1:]
		}
		if len(ops) > 0 {
			pl := s.Where(ops[0], c.Cwd)
			if pl.Zone == judge.ZWork || pl.Zone == judge.ZTmp || ops[0] == ":memory:" {
				s.Allow(c.Name + " on a database of the workspace")
				return
			}
			if pl.Zone != judge.ZWork && pl.Zone != judge.ZTmp && ops[0] != ":memory:" {
				if level, what := s.Secret(pl); level > secret.None || secret.IsBrowserStore(strings.ToLower(pl.Abs), strings.ToLower(judge.ShortBase(pl.Abs))) {
					s.Deny(vocab.CredentialProbing, "`"+c.Text+"` opens "+what)
					return
				}
				s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` opens a database outside the workspace")
			}
		}
	case "redis-cli":
		if shell.HasWord(c.Args, "FLUSHALL", "flushall", "FLUSHDB", "flushdb", "DEL", "del", "CONFIG", "config", "SHUTDOWN", "shutdown") {
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` changes or empties Redis")
			return
		}
		s.Allow("redis-cli")
		return
	case "mongosh", "mongo":
		for _, e := range shell.OptValues(c.Args, "", "eval") {
			if strings.Contains(e, "drop") || strings.Contains(e, "delete") || strings.Contains(e, "remove") {
				s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` drops or deletes data")
				return
			}
		}
	}
	if len(sqls) == 0 {
		if c.Sc.Pipeline > 0 || c.Name == "sqlite3" {
			s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs SQL the first pass cannot see")
			return
		}
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` opens an interactive database session")
		return
	}
	for _, q := range sqls {
		if q == "-- file" {
			s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs a SQL file")
			continue
		}
		f := JudgeSQLText(q)
		f.Reason = "`" + c.Text + "` " + f.Reason
		s.V.Add(f)
	}
}

func judgeOpenssl(s *judge.Script, c *judge.Command) {
	if len(c.Args) < 2 {
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` starts an interactive openssl")
		return
	}
	in := shell.OptValues(c.Args, "-in", "")
	switch v := c.Args[1]; v {
	case "x509", "req", "verify", "crl", "version", "s_client", "ciphers", "dgst", "rand", "list", "help", "speed", "asn1parse", "sess_id", "ocsp", "passwd", "prime", "errstr":
		if v == "x509" || v == "req" || v == "verify" {
			for _, f := range in {
				s.Read(c, f, false)
			}
		}
		for _, o := range shell.OptValues(c.Args, "-out", "") {
			s.Write(c, s.Where(o, c.Cwd), "")
		}
		s.Allow("openssl " + v)
	case "genrsa", "genpkey", "ecparam":
		for _, o := range shell.OptValues(c.Args, "-out", "") {
			s.Write(c, s.Where(o, c.Cwd), "")
		}
		s.Allow("openssl " + v)
	case "rsa", "pkey", "ec", "pkcs12", "pkcs8", "dsa":
		if shell.HasWord(c.Args, "-pubout") && !shell.HasWord(c.Args, "-text") {
			s.Allow("openssl " + v + " -pubout")
			return
		}
		s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` reads a private key")
	case "enc", "smime", "cms", "pkeyutl", "rsautl":
		for _, f := range in {
			pl := s.Where(f, c.Cwd)
			if pl.Zone != judge.ZWork && pl.Zone != judge.ZTmp {
				s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` encrypts or decrypts files outside the workspace")
				return
			}
		}
		s.Esc(vocab.CredentialProbing, judge.Low, "`"+c.Text+"` encrypts or decrypts data")
	default:
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"`: openssl "+v+" is not a command the first pass knows")
	}
}

func judgeSSHKeygen(s *judge.Script, c *judge.Command) {
	switch {
	case shell.HasShort(c.Args, 'p', "tbfCNPEFmnOrsVwzZIJKLMa") || shell.HasShort(c.Args, 'e', "tbfCNPEFmnOrsVwzZIJKLMa"):
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` changes or exports a private key")
	case shell.HasShort(c.Args, 'y', "tbfCNPEFmnOrsVwzZIJKLMa"), shell.HasShort(c.Args, 'l', "tbfCNPEFmnOrsVwzZIJKLMa"),
		shell.HasShort(c.Args, 'F', "tbfCNPEmnOrsVwzZIJKLMa"), shell.HasShort(c.Args, 'R', "tbfCNPEFmnOrsVwzZIJKLMa"):
		s.Allow("ssh-keygen")
	default:
		for _, f := range shell.OptValues(c.Args, "-f", "") {
			pl := s.Where(f, c.Cwd)
			if level, _ := s.Secret(pl); level == secret.Critical && (pl.Zone == judge.ZHome || pl.Zone == judge.ZWork) {
				// Overwriting an existing default key loses it; a named
				// new key is fine.
				if secret.IsPrivateKeyName(strings.ToLower(judge.ShortBase(f))) {
					s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` may overwrite the default SSH key")
					return
				}
			}
			// The new key and its .pub land where -f says (SPEC G15:
			// in the home directory, that is not routine).
			s.Write(c, pl, "")
		}
		s.Allow("ssh-keygen")
	}
}

func judgeSSHAdd(s *judge.Script, c *judge.Command) {
	escOrAllow(s, c, shell.HasShort(c.Args, 'D', "") || shell.HasShort(c.Args, 'd', "") || shell.HasShort(c.Args, 'x', ""),
		vocab.SecurityWeakening, judge.Low, "changes the SSH agent", "ssh-add")
}

func judgeGpg(s *judge.Script, c *judge.Command) {
	switch {
	case shell.HasLong(c.Args, "export-secret-keys", "export-secret-subkeys"):
		s.Deny(vocab.CredentialProbing, "`"+c.Text+"` exports secret keys")
	case shell.HasLong(c.Args, "decrypt") || shell.HasShort(c.Args, 'd', "orusf"):
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` decrypts data")
	case shell.HasLong(c.Args, "symmetric", "encrypt") || shell.HasShort(c.Args, 'c', "orusf") || shell.HasShort(c.Args, 'e', "orusf"):
		for _, p := range shell.Operands(c.Args, "orusf", "output", "recipient", "local-user", "passphrase", "passphrase-fd", "cipher-algo") {
			pl := s.Where(p, c.Cwd)
			if pl.Zone != judge.ZWork && pl.Zone != judge.ZTmp {
				s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` encrypts files outside the workspace")
				return
			}
		}
		s.Allow("gpg encrypt")
	case shell.HasLong(c.Args, "delete-secret-keys", "delete-keys", "delete-secret-and-public-key"):
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes keys")
	default:
		s.Allow("gpg")
	}
}

func judgeSecretTool(s *judge.Script, c *judge.Command) {
	switch c.Name {
	case "security":
		if len(c.Args) > 1 && (strings.HasPrefix(c.Args[1], "find-") && strings.HasSuffix(c.Args[1], "-password") && shell.HasShort(c.Args, 'w', "agcslr") ||
			c.Args[1] == "dump-keychain" || c.Args[1] == "export") {
			s.Deny(vocab.CredentialProbing, "`"+c.Text+"` reads passwords from the keychain")
			return
		}
		if len(c.Args) > 1 && (c.Args[1] == "list-keychains" || c.Args[1] == "find-certificate" || c.Args[1] == "verify-cert") {
			s.Allow("security")
			return
		}
	case "sops", "age", "kubeseal":
		if shell.HasShort(c.Args, 'd', "") || shell.HasLong(c.Args, "decrypt") {
			s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` decrypts secrets")
			return
		}
		s.Allow(c.Name)
		return
	}
	s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` reads or changes a secret store")
}

func judgeApt(s *judge.Script, c *judge.Command) {
	i, ok := subcommand(s, c.Args, c.Name, "-o", "-c", "-t", "--target-release")
	if !ok {
		return
	}
	v := c.Args[i]
	switch v {
	case "list", "search", "show", "info", "policy", "depends", "rdepends", "madison", "showpkg", "-l", "-L", "-s",
		"-q", "-qa", "-qi", "-ql", "--list", "outdated", "leaves", "deps", "uses", "desc", "doctor", "config",
		"provides", "repolist", "history", "check-update", "query", "-Q", "-Qi", "-Ql", "-Ss", "-Si", "status", "--version", "version":
		s.Allow(c.Name + " " + v)
	case "remove", "purge", "autoremove", "erase", "uninstall", "-R", "-Rs", "-Rns", "del", "-e", "--purge", "-r":
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` removes system packages")
	case "update", "-Sy", "makecache", "refresh":
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` refreshes the system's package lists")
	default:
		s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` installs or changes system packages")
	}
}
