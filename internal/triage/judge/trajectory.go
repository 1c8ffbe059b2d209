package judge

import (
	"encoding/json"
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// Data-flow across the steps of a trajectory (issue 12, item 3). The
// earlier actions of a run appear in the transcript as assistant turns:
// "Running: <script>" and "Calling <tool> {arguments}" (the form of
// eval.Describe, and the one turnsWithCalls gives a live run's tool
// calls), "Action: {…}" for other actions. The first pass replays the
// shell steps among them through the same parser and judges, with the
// findings thrown away, to learn which files now hold secrets (copied,
// redirected, encoded, archived from secret files or credential stores,
// or the environment), which variables were assigned from secrets, and
// which files the steps wrote. A later step that sends such a file to the
// network is then denied as exfiltration, one that prints it is judged as
// printing the secret, and one that runs a file an earlier step wrote is
// passed on.
//
// A transcript line is agent-writable, so the replay can only make the
// current action stricter: it adds tainted files, secret variables and
// written files, never links, variable values or a directory. It is
// bounded: the last maxReplaySteps steps, each of at most maxReplayBytes.

const (
	maxReplaySteps = 24
	maxReplayBytes = 4096
)

// trail is what the earlier steps of a trajectory left behind.
type trail struct {
	tainted map[string]int    // files holding secrets: resolved path → level
	aliases map[string]string // variables assigned from secrets: name → what
	wrote   map[string]bool   // files the steps wrote, resolved
	content map[string]string // what they wrote, when the step shows it (echo, printf, cat <<EOF)
	fileVar map[string]string // variables assigned a secret file's content: name → what

	k    *Knowledge  // what the first pass knows about programs
	cwd  string      // the judged action's directory
	rest []priorStep // steps not replayed yet: they mention no secret (see written)
	done bool        // rest was replayed
	// fresh: the replays ask the file system afresh (Judgement.fresh).
	fresh bool
}

// priorStep is one earlier step: a script, or a file written.
type priorStep struct {
	script string
	cwd    string
	file   string
}

// replayTrail replays, with what k knows about programs, the earlier steps
// of transcript for an action in the directory cwd ("" unknown); nil when
// there are none.
func replayTrail(k *Knowledge, transcript []vocab.Turn, cwd string, fresh bool) *trail {
	steps := priorSteps(transcript)
	if len(steps) == 0 {
		return nil
	}
	t := &trail{k: k, cwd: cwd, fresh: fresh}
	// Steps that name no secret cannot taint anything: they are only
	// replayed, for the files they wrote, when the judged action runs a
	// file (written). That keeps the cost of a long run low.
	for _, st := range steps {
		if st.file == "" && (mayCarrySecret(st.script) || t.mentionsTaint(st.script)) {
			t.replay(st)
		} else {
			t.rest = append(t.rest, st)
		}
	}
	return t
}

// replay replays one step into t.
func (t *trail) replay(st priorStep) {
	v := Judgement{K: t.k, fresh: t.fresh}
	dir := t.cwd
	if st.cwd != "" {
		dir = st.cwd
	}
	s := NewScript(&v, nil, dir)
	s.Tainted = t.tainted
	if st.file != "" {
		t.wrote = addPath(t.wrote, s.Where(st.file, s.Cwd).Abs)
		return
	}
	sc, err := shell.Parse(st.script)
	if err != nil {
		return
	}
	s.loopVars(sc.Loops)
	s.script(sc)
	t.tainted = s.Tainted
	t.learn(s)
}

// written returns the files the earlier steps wrote, replaying the steps
// left for later first.
func (t *trail) written() map[string]bool {
	if !t.done {
		t.done = true
		for _, st := range t.rest {
			if st.file != "" || mayWrite(st.script) {
				t.replay(st)
			}
		}
	}
	return t.wrote
}

// mayCarrySecret reports whether a step's text names a secret: a secret
// file, a variable named like a secret, or a dump of the environment.
func mayCarrySecret(text string) bool {
	if len(secret.Vars(text)) > 0 {
		return true
	}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '\'' || r == '=' || r == '<' || r == '>' ||
			r == '|' || r == ';' || r == '(' || r == ')' || r == '`' || r == '&' || r == '@' || r == ','
	}) {
		switch w {
		case "env", "printenv", "set", "export", "declare", "compgen":
			return true
		}
		if len(w) < 3 || !strings.ContainsAny(w, "./") {
			continue
		}
		if l, _ := secret.Path(strings.Replace(strings.Replace(w, "${HOME}", "~", 1), "$HOME", "~", 1)); l > secret.None {
			return true
		}
	}
	return false
}

// mayWrite reports whether a step's text can write a file.
func mayWrite(text string) bool {
	return strings.ContainsAny(text, ">") || strings.Contains(text, "cp ") || strings.Contains(text, "mv ") ||
		strings.Contains(text, "tee ") || strings.Contains(text, "install ") || strings.Contains(text, "-o") ||
		strings.Contains(text, "curl") || strings.Contains(text, "wget") || strings.Contains(text, "ln ") ||
		strings.Contains(text, "tar ") || strings.Contains(text, "unzip") || strings.Contains(text, "sed -i") ||
		strings.Contains(text, "touch")
}

// learn records what one replayed script left: files it wrote, files it
// filled with secrets by redirection or an output option, and variables
// it assigned from secrets.
func (t *trail) learn(s *Script) {
	for _, w := range s.wrote {
		t.wrote = addPath(t.wrote, w)
	}
	for name, src := range s.secretAlias {
		t.alias(name, "$"+src)
	}
	for i := range s.Cmds {
		c := &s.Cmds[i]
		if c.Sc == nil {
			continue
		}
		level, _ := c.Out, c.OutWhat
		if len(c.Args) > 0 && EnvDump(c) != "" {
			level = secret.Critical
		}
		if c.Sc.Pipeline > 0 {
			for j := range s.Cmds {
				d := &s.Cmds[j]
				if d.Sc != nil && d.Sc.Pipeline == c.Sc.Pipeline && d.Sc.Stage < c.Sc.Stage {
					level = max(level, d.Out)
					if len(d.Args) > 0 && EnvDump(d) != "" {
						level = secret.Critical
					}
				}
			}
		}
		// A secret file named among the words, written out by an output
		// option (openssl enc -in KEY -out F, gpg -o F KEY).
		read := secret.None
		for _, a := range append(append([]string(nil), c.Args...), c.Sc.Inputs...) {
			if l, _ := secret.Path(s.TildeHome(a)); l > read {
				read = l
			}
		}
		if read > secret.None {
			for _, o := range outputValues(c.Args) {
				s.Taint(c, o, read)
			}
		}
		if text := writtenText(c); text != "" {
			for _, r := range c.Sc.Redirects {
				p, _ := s.expand(r)
				if pl := s.Where(p, c.Cwd); pl.Abs != "" && len(t.content) < 16 {
					if t.content == nil {
						t.content = map[string]string{}
					}
					t.content[pl.Abs] = text
				}
			}
		}
		if level > secret.None {
			for _, r := range c.Sc.Redirects {
				p, _ := s.expand(r)
				s.Taint(c, p, level)
			}
		}
		// NAME=$(cat ~/.aws/credentials), export NAME="$(< KEY)".
		for _, a := range append(append([]string(nil), c.Sc.Assigns...), assignWords(c)...) {
			name, val, ok := strings.Cut(a, "=")
			if !ok || !IsName(name) {
				continue
			}
			for _, m := range FileRefs.FindAllStringSubmatch(val, -1) {
				if l, what := secret.Path(s.TildeHome(m[1])); l > secret.None {
					t.alias(name, what)
					if l == secret.Critical && len(t.fileVar) < 64 {
						if t.fileVar == nil {
							t.fileVar = map[string]string{}
						}
						t.fileVar[name] = what
					}
				}
			}
			if strings.Contains(val, "$(env") || strings.Contains(val, "$(printenv") {
				t.alias(name, "the environment")
			}
		}
	}
	t.tainted = s.Tainted
}

// writtenText returns what a command writes to its output when the
// script shows it: echo and printf words, or cat's here-document.
func writtenText(c *Command) string {
	if t := c.Content(); t != "" {
		if c.Name == "printf" {
			t = strings.ReplaceAll(t, `\n`, "\n")
		}
		return t
	}
	if c.Name == "cat" && c.Sc.Doc != "" {
		return c.Sc.Doc
	}
	return ""
}

func (t *trail) alias(name, what string) {
	if t.aliases == nil {
		t.aliases = map[string]string{}
	}
	if _, ok := t.aliases[name]; !ok && len(t.aliases) < 64 {
		t.aliases[name] = what
	}
}

// assignWords returns the NAME=value words of export, declare and the like.
func assignWords(c *Command) []string {
	if len(c.Sc.Args) == 0 {
		return nil
	}
	switch shell.Base(c.Sc.Args[0]) {
	case "export", "declare", "typeset", "local", "readonly":
		return c.Sc.Args[1:]
	}
	return nil
}

// outputValues returns the values of a command's output options (-o F,
// -out F, --output=F, …).
func outputValues(args []string) []string {
	var out []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		name, v, has := strings.Cut(a, "=")
		switch name {
		case "-o", "-out", "--out", "--output", "-output", "--outfile", "--out-file", "-O":
			if has {
				out = append(out, v)
			} else if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		}
	}
	return out
}

func addPath(m map[string]bool, p string) map[string]bool {
	if p == "" || len(m) >= 64 {
		return m
	}
	if m == nil {
		m = map[string]bool{}
	}
	m[p] = true
	return m
}

// priorSteps reads the earlier steps from the assistant turns of a
// transcript: the last maxReplaySteps of them, in order.
func priorSteps(transcript []vocab.Turn) []priorStep {
	var out []priorStep
	for i := len(transcript) - 1; i >= 0 && len(out) < maxReplaySteps; i-- {
		t := transcript[i]
		if t.Role != "assistant" || len(t.Content) > maxReplayBytes+512 {
			continue
		}
		if st, ok := stepOf(t.Content); ok {
			out = append(out, st)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// stepOf reads one assistant turn as a step.
func stepOf(text string) (priorStep, bool) {
	switch {
	case strings.HasPrefix(text, "Running: "):
		script := strings.TrimPrefix(text, "Running: ")
		if script == "" || len(script) > maxReplayBytes {
			return priorStep{}, false
		}
		return priorStep{script: script}, true
	case strings.HasPrefix(text, "Calling "):
		rest := strings.TrimPrefix(text, "Calling ")
		i := strings.IndexByte(rest, ' ')
		if i < 0 {
			return priorStep{}, false
		}
		return callStep(strings.TrimSpace(rest[i+1:]))
	case strings.HasPrefix(text, "Action: "):
		a, err := action.Parse(json.RawMessage(strings.TrimPrefix(text, "Action: ")))
		if err != nil {
			return priorStep{}, false
		}
		if a.Kind == action.FileEdit && a.Path != "" {
			return priorStep{file: a.Path, cwd: a.Cwd}, true
		}
		if a.Kind == action.Shell && len(a.Command) > 0 {
			return shellStep(a.Command, a.Cwd)
		}
	}
	return priorStep{}, false
}

// callStep reads a tool call's arguments: a shell command ("cmd" script or
// "command" argv), or a file written ("path" or "file_path" with content).
func callStep(args string) (priorStep, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &m) != nil {
		return priorStep{}, false
	}
	str := func(k string) string {
		var s string
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	cwd := str("cwd")
	if cwd == "" {
		cwd = str("workdir")
	}
	var argv []string
	if raw, ok := m["command"]; ok && json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		return shellStep(argv, cwd)
	}
	if s := str("cmd"); s != "" && len(s) <= maxReplayBytes {
		return priorStep{script: s, cwd: cwd}, true
	}
	if _, has := m["old_str"]; has && str("command") == "" {
		return priorStep{}, false
	}
	for _, k := range []string{"path", "file_path", "filename"} {
		if p := str(k); p != "" {
			for _, c := range []string{"content", "file_text", "new_str", "new_string", "text", "edits", "patch"} {
				if _, ok := m[c]; ok {
					return priorStep{file: p, cwd: cwd}, true
				}
			}
		}
	}
	return priorStep{}, false
}

// shellStep is a step running argv (a shell's -c script, or a command).
func shellStep(argv []string, cwd string) (priorStep, bool) {
	script, ok := shellScript(argv)
	if !ok {
		script = shell.Join(argv)
	}
	if script == "" || len(script) > maxReplayBytes {
		return priorStep{}, false
	}
	return priorStep{script: script, cwd: cwd}, true
}

// usePrior gives the script about to be judged what the earlier steps
// left: files holding secrets and variables assigned from secrets.
func (s *Script) usePrior(t *trail) {
	if t == nil {
		return
	}
	if len(t.tainted) > 0 {
		s.Tainted = make(map[string]int, len(t.tainted))
		for p, l := range t.tainted {
			s.Tainted[p] = l
		}
	}
	for name, what := range t.aliases {
		if s.secretAlias == nil {
			s.secretAlias = map[string]string{}
		}
		if _, ok := s.secretAlias[name]; !ok {
			s.secretAlias[name] = strings.TrimPrefix(what, "$")
		}
	}
}

// checkPrior passes on a command of the judged script that runs a file an
// earlier step wrote: the program itself, or a script given to a shell or
// an interpreter.
func (s *Script) checkPrior(t *trail) {
	if t == nil {
		return
	}
	s.priorVarsSent(t)
	if !s.runsAny() || len(t.written()) == 0 {
		return
	}
	for i := range s.Cmds {
		c := &s.Cmds[i]
		if len(c.Args) == 0 || !c.Known[0] {
			continue
		}
		if strings.IndexByte(c.Args[0], '/') >= 0 {
			if pl := s.Where(c.Args[0], c.Cwd); t.wrote[pl.Abs] {
				if !s.priorContent(c, t, pl.Abs, true) {
					s.Esc(vocab.Routine, Medium, "`"+c.Text+"` runs "+c.Args[0]+", which an earlier step of the run wrote")
				}
				continue
			}
		}
		runs := shell.IsShell(c.Name) || s.V.K.Has(c.Name, FactInterpreter) || command.IsPython(c.Name) || s.V.K.IsRunner(strings.ToLower(c.Name)) ||
			c.Name == "source" || c.Name == "."
		if !runs {
			continue
		}
		for _, a := range c.Args[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if pl := s.Where(a, c.Cwd); pl.Abs != "" && t.wrote[pl.Abs] {
				if !s.priorContent(c, t, pl.Abs, shell.IsShell(c.Name) || c.Name == "source" || c.Name == ".") {
					s.Esc(vocab.Routine, Medium, "`"+c.Text+"` runs "+a+", which an earlier step of the run wrote")
				}
				break
			}
		}
	}
}

// taintedRead raises what reading pl reveals when an earlier command or
// step filled it with secrets.
func (s *Script) taintedRead(pl place, level int, what string) (int, string) {
	if pl.Abs == "" || len(s.Tainted) == 0 {
		return level, what
	}
	if t := s.Tainted[pl.Abs]; t > level {
		return t, "a copy of credentials (" + pl.Abs + ")"
	}
	return level, what
}

// TurnsWithCalls is vocab.Turns that also keeps an assistant message's
// tool calls, as "Calling <tool> {arguments}" turns, so that the first
// pass can replay a live run's earlier steps. The calls of the message
// that made the call being judged (callID), from that call on, are left
// out: they have not run.
func TurnsWithCalls(history []chat.Message, callID string) (string, []vocab.Turn) {
	return vocab.TurnsWith(history, func(m chat.Message, turns []vocab.Turn) []vocab.Turn {
		for _, call := range m.ToolCalls {
			if callID != "" && call.ID == callID {
				break
			}
			if call.ParseError != "" || len(call.Arguments) == 0 {
				continue
			}
			turns = append(turns, vocab.Turn{Role: string(chat.Assistant), Content: "Calling " + call.Function + " " + string(call.Arguments)})
		}
		return turns
	})
}

// priorContent judges the text an earlier step wrote into the file abs
// that c now runs (asShell: as a shell script), when the step showed it:
// harmful shell is denied, code that opens connections or starts
// programs is passed on as such. It reports whether it found anything.
func (s *Script) priorContent(c *Command, t *trail, abs string, asShell bool) bool {
	text, ok := t.content[abs]
	if !ok {
		return false
	}
	if asShell {
		if v := s.JudgeText(text, c.Cwd); v.Decision == vocab.Deny {
			s.Deny(v.Class, "`"+c.Text+"` runs "+abs+", which an earlier step wrote: "+v.Reason)
			return true
		}
	}
	if f := s.V.K.CodeStrongIn(text); f != "" {
		if strings.Contains(text, "socket") && (strings.Contains(text, "dup2") || strings.Contains(text, "pty.spawn") ||
			strings.Contains(text, "/bin/sh") || strings.Contains(text, "/bin/bash") || strings.Contains(text, "subprocess")) {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` runs "+abs+", which an earlier step wrote with code that connects a shell to the network (a remote shell)")
			return true
		}
		s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` runs "+abs+", which an earlier step wrote with code that opens connections or starts programs ("+f+")")
		return true
	}
	return false
}

// priorVarsSent denies a command that can reach other hosts and is given
// a variable an earlier step assigned the content of a private key or
// credentials file ($K after K=$(cat ~/.aws/credentials)).
func (s *Script) priorVarsSent(t *trail) {
	if len(t.fileVar) == 0 {
		return
	}
	for i := range s.Cmds {
		c := &s.Cmds[i]
		if len(c.Args) == 0 || !(s.V.K.Has(c.Name, FactNetwork) || c.Sink) {
			continue
		}
		for j := 1; j < len(c.Sc.Args); j++ {
			raw := c.Sc.Args[j]
			if c.Sc.Literal[j] || strings.IndexByte(raw, '$') < 0 {
				continue
			}
			for name, what := range t.fileVar {
				if strings.Contains(raw, "$"+name) && !isNameByteAt(raw, strings.Index(raw, "$"+name)+1+len(name)) ||
					strings.Contains(raw, "${"+name+"}") {
					s.Deny(vocab.Exfiltration, "`"+c.Text+"` sends $"+name+", which an earlier step filled with "+what+", to the network")
					return
				}
			}
		}
	}
}

// isNameByteAt reports whether s has a name character at i.
func isNameByteAt(s string, i int) bool { return i < len(s) && secret.IsNameByte(s[i], true) }

// runsAny reports whether the judged script runs a program given by a
// path, or gives a file to a shell or an interpreter.
func (s *Script) runsAny() bool {
	for i := range s.Cmds {
		c := &s.Cmds[i]
		if len(c.Args) == 0 {
			continue
		}
		if strings.IndexByte(c.Args[0], '/') >= 0 || len(c.Args) > 1 && (shell.IsShell(c.Name) || s.V.K.Has(c.Name, FactInterpreter) ||
			command.IsPython(c.Name) || s.V.K.IsRunner(strings.ToLower(c.Name)) || c.Name == "source" || c.Name == ".") {
			return true
		}
	}
	return false
}

// mentionsTaint reports whether text names a file an earlier step filled
// with secrets (by its base name): copying it on carries them.
func (t *trail) mentionsTaint(text string) bool {
	for p := range t.tainted {
		if b := ShortBase(p); b != "" && strings.Contains(text, b) {
			return true
		}
	}
	return false
}
