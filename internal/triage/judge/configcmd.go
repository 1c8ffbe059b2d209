package judge

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/protection"
	"github.com/wardenhq/warden/internal/vocab"
)

// writesText reports whether a command writes files with text its own
// words show: a redirection, in-place editing, tee.
func writesText(c *Command) bool {
	if len(c.Sc.Redirects) > 0 {
		return true
	}
	switch c.Name {
	case "tee", "sponge", "ed", "ex", "dd", "install", "cp", "mv":
		return true
	case "yq", "dasel", "crudini", "xmlstarlet", "tomlq", "toml", "jsonnet", "gcloud", "az", "aws":
		// Configuration editors, and cloud CLIs whose words set
		// configuration (--no-deletion-protection is read by the
		// program judges).
		return true
	case "terraform", "tofu", "terragrunt", "pulumi", "helm", "helmfile", "kubectl", "cdk", "ansible-playbook", "kustomize":
		// Their words set variables and values (-var, --set, -c,
		// -e, config set) of what they deploy.
		for _, a := range c.Args[1:] {
			if strings.Contains(a, "=") || a == "set" {
				return true
			}
		}
	case "sed", "gsed", "perl", "ruby", "awk", "gawk":
		for _, a := range c.Args[1:] {
			if strings.HasPrefix(a, "-i") || a == "--in-place" || strings.HasPrefix(a, "--in-place=") ||
				strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i") && (c.Name == "perl" || c.Name == "ruby") {
				return true
			}
		}
	}
	return false
}

// optionEffect says how a command records the screen, the microphone, the
// camera or keystrokes, or serves files or sets modes that weaken the
// machine through a program's options ("" otherwise): what a program
// table may read as routine media or file work.
func optionEffect(c *Command) string {
	switch c.Name {
	case "scrot", "gnome-screenshot", "xwd", "screencapture", "arecord", "parecord", "rec", "fswebcam", "xinput", "logkeys", "showkey":
		if c.Name == "xinput" && !shell.HasWord(c.Args, "test", "test-xi2") {
			return ""
		}
		return "records the screen, audio, camera or keystrokes"
	case "import":
		if shell.HasWord(c.Args, "-window") {
			return "records the screen"
		}
	case "ffmpeg", "avconv", "gst-launch-1.0", "vlc", "cvlc":
		for _, a := range c.Args[1:] {
			switch a {
			case "x11grab", "avfoundation", "gdigrab", "kmsgrab", "v4l2", "alsa", "pulse", "dshow", "screen://", "ximagesrc", "pulsesrc":
				return "records the screen, audio or camera"
			}
		}
	case "ruby":
		if shell.HasWord(c.Args, "-run") && shell.HasWord(c.Args, "httpd") {
			return "serves files over HTTP to the network"
		}
	case "install":
		for i, a := range c.Args[1:] {
			m := ""
			switch {
			case a == "-m" || a == "--mode":
				if i+2 < len(c.Args) {
					m = c.Args[i+2]
				}
			case strings.HasPrefix(a, "--mode="):
				m = a[len("--mode="):]
			case strings.HasPrefix(a, "-m") && len(a) > 2:
				m = a[2:]
			}
			if m != "" && (command.ModeSetUID(m) || command.ModeSetGID(m)) {
				return "installs a file setuid or setgid"
			}
		}
	}
	return ""
}

// InPlaceConfigEdit judges an in-place edit (sed -i, perl -pi) of files
// by its expressions: for a configuration or security policy file, an
// expression not known before the command runs, one that deletes lines,
// or one about security that removes no protection the first pass can
// name is passed on (a protection removed is judged where the text is
// written).
func (s *Script) InPlaceConfigEdit(c *Command, exprs, files []string) {
	config := false
	for _, f := range files {
		if f != "" && (protection.ConfigFile(f) || protection.SecurityFile(s.V.K, f) != "") {
			config = true
			break
		}
	}
	if !config {
		return
	}
	unknown := false
	for i := 1; i < len(c.Args) && i < len(c.Known); i++ {
		if !c.Known[i] {
			unknown = true
		}
	}
	w := s.V.K.List("security_line_words")
	for _, e := range exprs {
		switch {
		case unknown || strings.ContainsAny(e, "\x00\x01"):
			s.Esc(vocab.SecurityWeakening, Medium, "`"+c.Text+"` edits a configuration file with an expression that is not known before it runs")
			return
		case sedDeletes(e):
			s.Esc(vocab.SecurityWeakening, Medium, "`"+c.Text+"` deletes lines of a configuration file")
			return
		case protection.HasWordIn(e, w) || protection.SecurityKeyIn(s.V.K, e):
			s.Esc(vocab.SecurityWeakening, Medium, "`"+c.Text+"` changes security settings of a configuration file with an expression the first pass does not judge")
			return
		}
	}
}

// sedDeletes reports whether a sed script has a d (delete) command.
func sedDeletes(script string) bool {
	for _, part := range strings.FieldsFunc(script, func(r rune) bool { return r == ';' || r == '\n' }) {
		p := strings.TrimSpace(part)
		if strings.HasSuffix(p, "d") && (strings.HasSuffix(p, "/d") || strings.HasSuffix(p, "}d") || strings.TrimLeft(p, "0123456789,$") == "d") {
			return true
		}
	}
	return false
}
