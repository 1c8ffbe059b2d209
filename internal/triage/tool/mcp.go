package tool

import (
	"encoding/json"
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/argument"
	"github.com/wardenhq/warden/internal/triage/fileedit"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/program"
	"github.com/wardenhq/warden/internal/triage/protection"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// MCP and function tool calls are judged by the verb in the tool's name
// and by their arguments: paths are judged as reads or writes, URLs for
// data they carry, SQL by its statements, commands as shell scripts, and
// everything a call sends out for secrets.

// The words of tools' names and arguments are lists of the programs file:
// tool_read_verbs, tool_write_verbs, tool_send_verbs and tool_destroy_verbs
// (the first of a name's words in one of them is its verb),
// tool_security_words, tool_infra_nouns, and the argument keys path_keys,
// content_keys, url_keys, sql_keys, command_keys, attach_keys and
// script_keys.

var (
	_ = judge.RegisterActionJudge(action.MCP, judgeMCP)
	_ = judge.RegisterActionJudge(action.Network, judgeNetwork)
)

func judgeMCP(v *judge.Judgement, a *action.Action, set *rules.Set) {
	name := a.ToolName
	server := a.Server
	if i := strings.LastIndex(name, "__"); i >= 0 {
		if server == "" {
			server = strings.TrimPrefix(name[:i], "mcp__")
		}
		name = name[i+2:]
	}
	leaves := argument.Flatten(a.Arguments)
	edit, view, isEdit := fileedit.McpFileEdit(name, leaves, a.Cwd)
	if isEdit && !view {
		// An editing tool: judged as the file edit it makes.
		fileedit.JudgeEdit(v, &edit, set, true)
		return
	}
	k := v.K
	readVerbs, localWriteVerbs, sendVerbs, destroyVerbs := k.List("tool_read_verbs"), k.List("tool_write_verbs"), k.List("tool_send_verbs"), k.List("tool_destroy_verbs")
	pathKeys, attachKeys := k.List("path_keys"), k.List("attach_keys")
	ws := argument.Words(name)
	verb := ""
	var nouns []string
	for _, w := range ws {
		if verb == "" && (readVerbs.Has(w) || localWriteVerbs.Has(w) || sendVerbs.Has(w) || destroyVerbs.Has(w)) {
			verb = w
			continue
		}
		nouns = append(nouns, w)
	}
	cwd := a.Cwd
	home := ""
	for _, l := range leaves {
		if pathKeys.Has(l.Key) || attachKeys.Has(l.Key) {
			if h := judge.HomeOf(l.Value); h != "" {
				home = h
				break
			}
		}
	}
	s := judge.NewScript(v, set, cwd)
	s.McpHome = true
	if home != "" && s.Home == "" {
		s.Home = home
	}
	c := &judge.Command{Sc: nil, Name: server + "/" + a.ToolName, Text: mcpText(server, a.ToolName, a.Arguments), Cwd: s.Cwd}

	if view {
		judgeMCPRead(s, c, "view", leaves)
		return
	}
	security := false
	for _, w := range ws {
		if k.List("tool_security_words").Has(w) {
			security = true
		}
	}
	gitTool := server == "git" || strings.HasPrefix(name, "git_") || strings.HasPrefix(name, "git-")

	// What the name says the tool touches, and page scripts reading
	// sessions: never routine by the verb alone.
	// What the name, the server or the arguments say the call reads:
	// passed on (never denied by this alone, even when the request asks
	// for it: the reviewer weighs the request).
	if what := protection.SensitiveTool(k, ws); what != "" {
		v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.Exfiltration, Risk: judge.High, Reason: "`" + c.Text + "` touches " + what + ", which the tool's verb does not make routine"})
	} else if w := protection.SensitiveServer(k, server); w != "" {
		v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.Exfiltration, Risk: judge.High, Reason: "`" + c.Text + "` calls " + server + ", a server that holds credentials or personal, health, payment or identity records (" + strings.ReplaceAll(w, "+", " ") + "), which the tool's verb does not make routine"})
	}
	if what := protection.SensitiveArgs(k, leaves); what != "" {
		v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.Exfiltration, Risk: judge.High, Reason: "`" + c.Text + "` asks for secret or personal data (" + what + "), which the tool's verb does not make routine"})
	}
	for _, l := range leaves {
		if strings.HasPrefix(l.Value, "/") || strings.HasPrefix(l.Value, "~/") {
			if lv, what := s.Secret(s.Where(l.Value, s.Cwd)); lv > secret.None {
				// A browser profile, a key file, a wallet named in
				// any argument (launchOptions.userDataDir).
				v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.CredentialProbing, Risk: judge.High, Reason: "`" + c.Text + "` names " + what + " (" + textcut.Shorten(l.Value, 60) + ")"})
				break
			}
		}
	}
	if server != "" && (verb == "" || readVerbs.Has(verb)) && !gitTool && !developerServer(k, server) && !innocentTool(k, nouns) &&
		!askedFor(v, server, nouns) {
		// A server the first pass does not know as a developer's tool
		// holds data whose owner it cannot tell (a CRM, a mailbox, a
		// school's records): reading it is not routine by the verb.
		v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.CredentialProbing, Risk: judge.Medium, Reason: "`" + c.Text + "` calls " + server +
			", a server the first pass does not know as a developer's tool: what its data is, and whose, is for the reviewer"})
	}
	if !readVerbs.Has(verb) {
		for _, n := range nouns {
			if k.List("tool_infra_nouns").Has(n) {
				v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.Destructive, Risk: judge.Medium, Reason: "`" + c.Text + "` changes " + n + ", beyond the workspace"})
				break
			}
		}
	}
	if !readVerbs.Has(verb) {
		for _, l := range leaves {
			if w := protection.PersonalValue(l); w != "" {
				v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.Exfiltration, Risk: judge.High, Reason: "`" + c.Text + "` enters personal or payment data (" + w + ")"})
				break
			}
		}
	}
	for _, l := range leaves {
		if k.List("script_keys").Has(l.Key) {
			if w := protection.BrowserScriptSecret(k, l.Value); w != "" {
				v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.CredentialProbing, Risk: judge.High, Reason: "`" + c.Text + "` runs a script that reads " + w})
				break
			}
		}
	}

	// Commands and SQL inside arguments.
	for _, l := range leaves {
		switch {
		case k.List("command_keys").Has(l.Key) && l.Path == "."+l.Key && (verb == "run" || verb == "execute" || verb == "exec" || verb == "" || strings.Contains(name, "command") || strings.Contains(name, "shell") || strings.Contains(name, "terminal")):
			// The server runs it on its own host, outside warden's
			// sandbox: judged as a command asking to leave it.
			sub := v.K.Judge(action.Action{Kind: action.Shell, Command: []string{"bash", "-c", l.Value}, Cwd: a.Cwd,
				SandboxPermissions: action.RequireEscalated}, set)
			v.Add(judge.Finding{Dec: sub.Decision, Class: sub.Class, Risk: judge.RiskLevel(sub.Risk), Reason: "`" + c.Text + "` runs a command: " + sub.Reason})
			return
		case k.List("sql_keys").Has(l.Key) && (verb == "query" || verb == "execute" || verb == "run" || verb == "read" || verb == "write" || strings.Contains(name, "sql") || strings.Contains(name, "query")) &&
			(sqlTool(server, ws) || looksLikeSQL(l.Value)):
			f := program.JudgeSQLText(l.Value)
			f.Reason = "`" + c.Text + "` " + f.Reason
			v.Add(f)
			return
		}
	}

	switch {
	case verb == "":
		v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.Routine, Risk: judge.Medium, Reason: "`" + c.Text + "`: the tool's name does not say what it does"})
		return
	case security && !readVerbs.Has(verb):
		judgeMCPSecurity(v, c, leaves)
		return
	case sendVerbs.Has(verb) || verb == "create" && sendsOut(nouns) || verb == "add" && sendsOut(nouns) || verb == "upload" && server != "filesystem" && server != "fs":
		judgeMCPSend(s, c, verb, nouns, leaves)
		return
	case destroyVerbs.Has(verb):
		if gitTool && verb == "merge" {
			s.Allow("git merge")
			return
		}
		for _, l := range leaves {
			if pathKeys.Has(l.Key) {
				s.Remove(c, l.Value, true)
				return
			}
		}
		v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.Destructive, Risk: judge.Medium, Reason: "`" + c.Text + "` deletes or discards data"})
		return
	case readVerbs.Has(verb):
		judgeMCPRead(s, c, verb, leaves)
		return
	case localWriteVerbs.Has(verb):
		judgeMCPWrite(s, c, verb, server, leaves, gitTool)
		return
	}
	v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.Routine, Risk: judge.Medium, Reason: "`" + c.Text + "`: the first pass does not know what this tool does"})
}

// mcpText renders a call for messages: server/tool {arguments}, shortened.
func mcpText(server, tool string, args json.RawMessage) string {
	t := tool
	if server != "" {
		t = server + "/" + tool
	}
	return textcut.Shorten(t+" "+string(args), 160)
}

// sendsOut reports whether the nouns of a create/add tool name something
// other people see (an issue, a comment, a message, a gist, …).
func sendsOut(nouns []string) bool {
	for _, n := range nouns {
		switch n {
		case "issue", "issues", "comment", "comments", "message", "messages", "gist", "post", "page", "pages",
			"email", "mail", "review", "discussion", "release", "tweet", "status", "event", "invite", "invitation",
			"ticket", "note", "notes", "reply", "thread", "channel", "doc", "document", "link", "share", "webhook", "incident", "pull", "pr":
			return true
		}
	}
	return false
}

func judgeMCPRead(s *judge.Script, c *judge.Command, verb string, leaves []argument.Leaf) {
	for _, l := range leaves {
		switch {
		case s.V.K.List("path_keys").Has(l.Key):
			if strings.Contains(l.Value, "://") {
				continue
			}
			if strings.HasPrefix(l.Value, "/") || strings.HasPrefix(l.Value, "~") || strings.HasPrefix(l.Value, ".") || l.Key == "path" || l.Key == "paths" {
				s.Read(c, l.Value, verb != "list" && verb != "tree" && verb != "stat" && verb != "info" && verb != "search" && verb != "find")
			}
		case s.V.K.List("url_keys").Has(l.Key) || strings.HasPrefix(l.Value, "http://") || strings.HasPrefix(l.Value, "https://") || judge.BrowserScheme(l.Value) != "":
			s.McpURL(c, l.Value)
		case l.Key == "q" || l.Key == "query" || l.Key == "pattern" || l.Key == "search" || l.Key == "text":
			if lvl, w := secret.InText(l.Value); lvl == secret.Critical {
				s.Deny(vocab.Exfiltration, "`"+c.Text+"` sends "+w+" in a search")
				return
			}
		}
	}
	s.Allow(c.Name)
}

func judgeMCPWrite(s *judge.Script, c *judge.Command, verb, server string, leaves []argument.Leaf, gitTool bool) {
	if gitTool {
		switch verb {
		case "commit", "add", "stage", "checkout", "switch", "branch", "create", "init", "stash":
			s.Allow("git " + verb)
			return
		}
	}
	var paths []string
	var content []string
	for _, l := range leaves {
		switch {
		case s.V.K.List("path_keys").Has(l.Key) && !strings.Contains(l.Value, "://"):
			paths = append(paths, l.Value)
		case s.V.K.List("content_keys").Has(l.Key):
			content = append(content, l.Value)
		case s.V.K.List("url_keys").Has(l.Key):
			s.McpURL(c, l.Value)
		}
	}
	if len(paths) == 0 {
		switch verb {
		case "click", "type", "fill", "press", "select", "scroll", "drag", "resize", "back", "forward", "reload", "tab", "close":
			s.Allow("browser interaction")
			return
		}
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` changes something in "+judge.OrName(server, "a service"))
		return
	}
	text := strings.Join(content, "\n")
	if r := protection.RemovesProtection(s.V.K, text, mcpOldText(leaves)); r != "" {
		s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` writes `"+r+"`, which removes a protection")
	}
	s.WriteFiles(c, paths, text)
	if verb == "install" || verb == "run" || verb == "execute" || verb == "exec" || verb == "start" {
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs something")
	}
}

// mcpOldText returns the text an edit tool's arguments say it replaces.
func mcpOldText(leaves []argument.Leaf) string {
	var b strings.Builder
	for _, l := range leaves {
		switch l.Key {
		case "oldtext", "old_text", "old_str", "oldstr", "old_string", "search":
			b.WriteString(l.Value)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func judgeMCPSend(s *judge.Script, c *judge.Command, verb string, nouns []string, leaves []argument.Leaf) {
	level, what := secret.None, ""
	public := false
	var recipients []string
	for _, l := range leaves {
		if s.V.K.List("attach_keys").Has(l.Key) || l.Key == "path" && verb != "create" {
			pl := s.Where(l.Value, s.Cwd)
			if lv, w := s.Secret(pl); lv > level {
				level, what = lv, w
			}
			if pl.Zone == judge.ZSystem && judge.SystemPrivate(pl.Abs) && level < secret.Sensitive {
				level, what = secret.Sensitive, pl.Abs
			}
			continue
		}
		if lv, w := secret.InText(l.Value); lv > level {
			level, what = lv, w
		}
		if strings.HasPrefix(l.Path, ".files.") && secret.IsEnvFile(strings.ToLower(strings.TrimPrefix(l.Path, ".files."))) {
			if level < secret.Sensitive {
				level, what = secret.Sensitive, "an environment file"
			}
		}
		if (l.Key == "public" && l.Value == "true") || (l.Key == "visibility" && l.Value == "public") || l.Key == "type" && l.Value == "anyone" {
			public = true
		}
		if l.Key == "to" || l.Key == "cc" || l.Key == "bcc" || l.Key == "recipient" || l.Key == "recipients" || l.Key == "channel" || l.Key == "channel_id" {
			recipients = append(recipients, l.Value)
		}
	}
	switch {
	case level == secret.Critical || level == secret.Sensitive && public:
		s.Deny(vocab.Exfiltration, "`"+c.Text+"` sends "+what+" out")
		return
	case level == secret.Sensitive:
		s.Esc(vocab.Exfiltration, judge.High, "`"+c.Text+"` sends "+what)
		return
	}
	if verb == "create" && hasNoun(nouns, "pull", "pr") {
		s.Allow("opens a pull request")
		return
	}
	if verb == "draft" {
		s.Allow("drafts a message")
		return
	}
	if public {
		s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` publishes content")
		return
	}
	who := ""
	if len(recipients) > 0 {
		who = " to " + strings.Join(recipients, ", ")
	}
	s.Esc(vocab.Exfiltration, judge.Low, "`"+c.Text+"` sends content"+who+"; whether the user asked for it is for the reviewer to judge")
}

func hasNoun(nouns []string, ws ...string) bool {
	for _, n := range nouns {
		for _, w := range ws {
			if n == w {
				return true
			}
		}
	}
	return false
}

func judgeMCPSecurity(v *judge.Judgement, c *judge.Command, leaves []argument.Leaf) {
	risk := judge.Medium
	for _, l := range leaves {
		val := strings.ToLower(l.Value)
		if val == "admin" || val == "owner" || val == "anyone" || val == "public" || val == "maintain" {
			risk = judge.High
		}
	}
	v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.SecurityWeakening, Risk: risk, Reason: "`" + c.Text + "` changes who can access something"})
}

// sqlTool reports whether a tool's server or name says it talks to a
// database in SQL.
func sqlTool(server string, ws []string) bool {
	if strings.Contains(strings.ToLower(server), "sql") || strings.Contains(strings.ToLower(server), "db") {
		return true
	}
	for _, w := range ws {
		switch w {
		case "sql", "db", "database", "databases", "postgres", "postgresql", "mysql", "sqlite", "mssql", "snowflake",
			"bigquery", "redshift", "duckdb", "clickhouse", "table", "tables":
			return true
		}
	}
	return false
}

// looksLikeSQL reports whether a query starts as an SQL statement does;
// a metrics (PromQL), log or search query does not.
func looksLikeSQL(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n(")
	i := 0
	for i < len(q) && (q[i] >= 'a' && q[i] <= 'z' || q[i] >= 'A' && q[i] <= 'Z') {
		i++
	}
	switch strings.ToLower(q[:i]) {
	case "select", "insert", "update", "delete", "with", "create", "drop", "alter", "truncate", "grant", "revoke",
		"merge", "replace", "upsert", "copy", "call", "exec", "execute", "begin", "commit", "rollback", "set", "show",
		"describe", "desc", "explain", "use", "vacuum", "analyze", "pragma", "attach", "detach", "values", "table", "lock",
		"rename", "comment", "do", "declare", "load", "unload", "put", "get", "remove", "list", "undrop", "optimize", "kill":
		return true
	}
	return false
}

// developerServer reports whether an MCP server's name says it is one of
// the developer tools the first pass knows (list developer_servers: code
// hosts, trackers, CI, docs, files, databases of the project, browsers
// for testing): its reads are judged by the tool's verb.
func developerServer(k *judge.Knowledge, server string) bool {
	known, filler := k.List("developer_servers"), k.List("server_filler_words")
	if known.Has(strings.ToLower(server)) {
		return true
	}
	named := false
	for _, w := range argument.Words(server) {
		switch {
		case filler.Has(w):
			// mcp-server-github: the filler says nothing of the data.
		case known.Has(w):
			named = true
		default:
			return false
		}
	}
	return named
}

// innocentTool reports whether a tool's nouns only ask about the service
// itself (its schema, health, version: list innocent_tool_nouns), not
// anybody's data.
func innocentTool(k *judge.Knowledge, nouns []string) bool {
	if len(nouns) == 0 {
		return false
	}
	ok := k.List("innocent_tool_nouns")
	for _, n := range nouns {
		if !ok.Has(n) {
			return false
		}
	}
	return true
}

// askedFor reports whether the user's words name the server or one of
// the tool's nouns (check my calendar → google-calendar/get_event): a
// read the user asked for. Vendors' and generic words (google, data: list
// unspecific_words) name no service.
func askedFor(v *judge.Judgement, server string, nouns []string) bool {
	if len(v.Asked) == 0 {
		return false
	}
	unspecific := v.K.List("unspecific_words")
	for _, w := range append(argument.Words(server), nouns...) {
		if len(w) > 3 && !unspecific.Has(w) && (v.Asked[w] || v.Asked[strings.TrimSuffix(w, "s")]) {
			return true
		}
	}
	return false
}
