package program

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = judge.RegisterJudges(map[string]func(*judge.Script, *judge.Command){
	"attack_tool":       judgeAttackTool,
	"credential_dumper": judgeCredentialDumper,
	"curl":              judgeCurl,
	"httpie":            judgeHTTPie,
	"mail":              judgeMail,
	"nc":                judgeNc,
	"scp":               judgeScp,
	"sniffer":           judgeSniffer,
	"ssh":               judgeSSH,
	"tunnel":            judgeTunnel,
	"wget":              judgeWget,
})

// dataItem is something a command sends: an inline value, a file, or its
// standard input.
type dataItem struct {
	file  string // path when sending a file ("-" for stdin)
	value string // inline data (expanded)
	raw   string // source text, for variable names
}

// secretData judges what a command sends to a remote host: the level of
// secret it holds and what it is.
func secretData(s *judge.Script, c *judge.Command, items []dataItem) (int, string) {
	level, what := secret.None, ""
	up := func(l int, w string) {
		if l > level {
			level, what = l, w
		}
	}
	for _, it := range items {
		if it.file != "" && it.file != "-" && it.file != "." {
			if strings.Contains(it.file, "$") {
				if l, w := mentionedSecret(s); l > secret.None {
					up(l, w+" (named earlier in the script)")
				}
				continue
			}
			pl := s.Where(it.file, c.Cwd)
			l, w := s.Secret(pl)
			up(l, w)
			if t := s.Tainted[pl.Abs]; t > secret.None {
				up(t, "an archive or copy of credentials ("+it.file+")")
			}
			continue
		}
		text := it.raw + " " + it.value
		if strings.Contains(text, "$(env") || strings.Contains(text, "$(printenv") || strings.Contains(text, "`env") ||
			strings.Contains(text, "$(set)") || strings.Contains(text, "$(export") {
			up(secret.Critical, "the whole environment")
		}
		for _, m := range judge.FileRefs.FindAllStringSubmatch(text, -1) {
			if l, w := s.SecretPath(s.TildeHome(m[1])); l > secret.None {
				up(l, w)
			}
		}
		if l, w := secret.InText(it.value); l > secret.None {
			up(l, w)
		}
		if vs := secret.Vars(it.raw); len(vs) > 0 {
			up(secret.Sensitive, "the secret $"+vs[0])
		}
	}
	return level, what
}

// mentionedSecret returns the most secret path the script assigns to a
// variable.
func mentionedSecret(s *judge.Script) (int, string) {
	level, what := secret.None, ""
	for _, m := range s.Mentions {
		if !strings.HasPrefix(m, "/") && !strings.HasPrefix(m, "~") && !strings.HasPrefix(m, ".") {
			continue
		}
		l, w := s.Secret(s.Where(m, s.Work))
		if l > level {
			level, what = l, w
		}
	}
	return level, what
}

// send judges a command sending items to the hosts of urls (unknown hosts
// count as remote). stdin says whether it sends its standard input.
func send(s *judge.Script, c *judge.Command, hosts []string, items []dataItem, verb string) {
	remote := len(hosts) == 0
	var dest string
	for _, h := range hosts {
		if h == "" || !network.Local(h) {
			remote = true
			if dest == "" {
				dest = h
			}
		}
	}
	if dest == "" {
		dest = "a host named at run time"
	}
	for _, it := range items {
		if it.file == "-" || it.file == "." {
			c.Sink = true
		}
	}
	if !remote {
		if l, w := secretData(s, c, items); l == secret.Critical {
			s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` "+verb+" "+w+" to a local service")
			return
		}
		s.Allow(verb + " to a local service")
		return
	}
	s.RemoteSink = true
	if l, w := secretData(s, c, items); l > secret.None {
		if strings.HasPrefix(w, "the secret $") {
			s.Esc(vocab.Exfiltration, judge.High, "`"+c.Text+"` "+verb+" "+w+" to "+dest)
			return
		}
		s.Deny(vocab.Exfiltration, "`"+c.Text+"` "+verb+" "+w+" to "+dest)
		return
	}
	s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` "+verb+" data to "+dest)
}

// curlShortArg are curl's short options that take a value.
const curlShortArg = "dFTXoHAebcwmxrKuUEQYyzCDt"

// curlLongArg are curl's long options that take a value.
var curlLongArg = judge.Set("data", "data-ascii", "data-binary", "data-raw", "data-urlencode", "json", "form", "form-string",
	"upload-file", "request", "output", "config", "user", "proxy-user", "header", "user-agent", "referer", "cookie",
	"cookie-jar", "write-out", "max-time", "connect-timeout", "proxy", "retry", "range", "cacert", "cert", "key",
	"resolve", "connect-to", "limit-rate", "proto", "proto-redir", "retry-delay", "retry-max-time", "max-filesize",
	"interface", "time-cond", "oauth2-bearer", "aws-sigv4", "ciphers", "unix-socket", "abstract-unix-socket",
	"dns-servers", "cert-type", "quote", "output-dir", "url", "capath", "key-type", "pass", "max-redirs",
	"speed-limit", "speed-time", "continue-at", "dump-header", "trace", "trace-ascii", "stderr", "netrc-file",
	"ftp-port", "mail-from", "mail-rcpt", "mail-auth", "variable", "expand-url", "expand-data", "login-options",
	"preproxy", "proxy-header", "socks5", "socks5-hostname", "socks4", "socks4a", "telnet-option", "tls-max",
	"happy-eyeballs-timeout-ms", "keepalive-time", "local-port", "service-name", "sasl-authzid", "hostpubmd5", "pubkey", "noproxy")

// curlOpt is one option of a curl command line.
type curlOpt struct {
	name string // "-d", "--data", …; "" for an operand (a URL)
	val  string
	raw  string // source text of the value
}

// curlArgs splits curl's words into options and operands, reading short
// option clusters (-sSfF VALUE).
func curlArgs(args, raw []string) []curlOpt {
	var out []curlOpt
	rawAt := func(i int) string {
		if i < len(raw) {
			return raw[i]
		}
		return ""
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for j := i + 1; j < len(args); j++ {
				out = append(out, curlOpt{val: args[j], raw: rawAt(j)})
			}
			return out
		case strings.HasPrefix(a, "--"):
			name, val, has := strings.Cut(a[2:], "=")
			name = strings.TrimPrefix(name, "no-")
			if has {
				out = append(out, curlOpt{name: "--" + name, val: val, raw: val})
			} else if curlLongArg[name] && i+1 < len(args) {
				i++
				out = append(out, curlOpt{name: "--" + name, val: args[i], raw: rawAt(i)})
			} else {
				out = append(out, curlOpt{name: "--" + name})
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				l := a[j]
				if strings.IndexByte(curlShortArg, l) < 0 {
					out = append(out, curlOpt{name: "-" + string(l)})
					continue
				}
				if j < len(a)-1 {
					out = append(out, curlOpt{name: "-" + string(l), val: a[j+1:], raw: a[j+1:]})
				} else if i+1 < len(args) {
					i++
					out = append(out, curlOpt{name: "-" + string(l), val: args[i], raw: rawAt(i)})
				}
				break
			}
		default:
			out = append(out, curlOpt{val: a, raw: rawAt(i)})
		}
	}
	return out
}

func judgeCurl(s *judge.Script, c *judge.Command) {
	var hosts []string
	var items []dataItem
	var urls []string
	post := false
	for _, o := range curlArgs(c.Args, c.Sc.Args) {
		switch o.name {
		case "":
			urls = append(urls, o.val)
		case "--url":
			urls = append(urls, o.val)
		case "-d", "--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode", "--json":
			items = append(items, curlData(o.val, o.raw, o.name))
			post = true
		case "-F", "--form", "--form-string":
			items = append(items, curlForm(o.val, o.raw, o.name == "--form-string"))
			post = true
		case "-T", "--upload-file":
			items = append(items, dataItem{file: o.val})
			post = true
		case "-X", "--request":
			if m := strings.ToUpper(o.val); m != "GET" && m != "HEAD" && m != "OPTIONS" {
				post = true
			}
		case "-o", "--output", "--output-dir", "--dump-header", "--trace", "--trace-ascii", "--stderr", "-c", "--cookie-jar", "-D":
			if o.val != "-" {
				s.Write(c, s.Where(o.val, c.Cwd), "")
			}
		case "-K", "--config", "--netrc-file":
			s.Read(c, o.val, false)
			s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` reads its options or credentials from a file")
		case "-u", "--user", "--proxy-user", "-U":
			if strings.Contains(o.val, ":") && !strings.HasSuffix(o.val, ":") {
				s.Esc(vocab.CredentialProbing, judge.Low, "`"+c.Text+"` puts a password on the command line")
			}
		case "--unix-socket", "--abstract-unix-socket":
			hosts = append(hosts, "localhost")
			if strings.HasSuffix(o.val, "docker.sock") {
				s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` talks to the Docker daemon")
			}
		case "--mail-rcpt":
			post = true
		}
	}
	if len(urls) == 0 && len(hosts) == 0 {
		s.Allow("curl")
		return
	}
	for _, u := range urls {
		if h, ok := network.URLHost(u); ok {
			hosts = append(hosts, h)
		}
	}
	if post || len(items) > 0 {
		send(s, c, hosts, items, "sends")
		return
	}
	download(s, c, urls, hosts)
}

// download judges a GET: data can leave in the URL itself.
func download(s *judge.Script, c *judge.Command, urls, hosts []string) {
	if !urlsCarry(s, c, urls, hosts) {
		s.Allow("downloads")
	}
}

// urlsCarry judges the data the addresses a command reaches carry (command
// output, a secret variable, a secret or encoded payload) and reports
// whether it found any.
func urlsCarry(s *judge.Script, c *judge.Command, urls, hosts []string) bool {
	for i, u := range urls {
		if i < len(c.Args) && (strings.Contains(u, "$(") || strings.Contains(u, "`")) {
			s.Esc(vocab.Exfiltration, judge.High, "`"+c.Text+"` puts command output into a URL")
			return true
		}
		if vs := secret.Vars(rawOf(c, u)); len(vs) > 0 {
			for _, h := range hosts {
				if !network.Local(h) {
					s.Esc(vocab.Exfiltration, judge.High, "`"+c.Text+"` puts the secret $"+vs[0]+" into a URL")
					return true
				}
			}
		}
		if l, w := network.URLPayload(u); l > secret.None {
			s.Deny(vocab.Exfiltration, "`"+c.Text+"` carries "+w+" in a URL")
			return true
		} else if w != "" {
			s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` carries encoded data in a URL")
			return true
		}
	}
	return false
}

// rawOf returns the source text of the word whose expanded value is v.
func rawOf(c *judge.Command, v string) string {
	for i, a := range c.Args {
		if a == v && i < len(c.Sc.Args) {
			return c.Sc.Args[i]
		}
	}
	return v
}

func curlData(v, raw, opt string) dataItem {
	if opt == "--data-raw" {
		return dataItem{value: v, raw: raw}
	}
	if opt == "--data-urlencode" {
		if _, f, ok := strings.Cut(v, "@"); ok && !strings.Contains(v[:strings.IndexByte(v, '@')], "=") {
			return dataItem{file: f}
		}
	}
	if strings.HasPrefix(v, "@") {
		return dataItem{file: v[1:]}
	}
	return dataItem{value: v, raw: raw}
}

func curlForm(v, raw string, literal bool) dataItem {
	_, val, _ := strings.Cut(v, "=")
	if !literal && (strings.HasPrefix(val, "@") || strings.HasPrefix(val, "<")) {
		f := val[1:]
		if i := strings.IndexByte(f, ';'); i >= 0 {
			f = f[:i]
		}
		return dataItem{file: f}
	}
	return dataItem{value: v, raw: raw}
}

func judgeWget(s *judge.Script, c *judge.Command) {
	var items []dataItem
	var urls []string
	post := false
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		name, val, has := strings.Cut(a, "=")
		next := func() string {
			if has {
				return val
			}
			if i+1 < len(c.Args) {
				i++
				return c.Args[i]
			}
			return ""
		}
		switch name {
		case "--post-data", "--body-data":
			items = append(items, dataItem{value: next(), raw: a})
			post = true
		case "--post-file", "--body-file":
			items = append(items, dataItem{file: next()})
			post = true
		case "--method":
			if m := strings.ToUpper(next()); m != "GET" && m != "HEAD" {
				post = true
			}
		case "-O", "--output-document":
			if o := next(); o != "-" {
				s.Write(c, s.Where(o, c.Cwd), "")
			}
		case "-P", "--directory-prefix":
			s.Write(c, s.Where(next(), c.Cwd), "")
		case "-o", "-a", "--output-file", "--append-output", "-i", "--input-file", "-e", "--execute", "--header",
			"-U", "--user-agent", "-T", "--timeout", "-t", "--tries", "--user", "--password", "--http-user",
			"--http-password", "-w", "--wait", "-l", "--level", "-A", "--accept", "-R", "--reject", "-D", "--domains":
			v := next()
			if name == "-o" || name == "-a" || name == "--output-file" || name == "--append-output" {
				s.Write(c, s.Where(v, c.Cwd), "")
			}
			if name == "-e" || name == "--execute" {
				s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs wgetrc commands")
			}
		default:
			if strings.HasPrefix(a, "-O") && len(a) > 2 && !strings.HasPrefix(a, "--") {
				s.Write(c, s.Where(a[2:], c.Cwd), "")
				continue
			}
			if !strings.HasPrefix(a, "-") {
				urls = append(urls, a)
			}
		}
	}
	var hosts []string
	for _, u := range urls {
		if h, ok := network.URLHost(u); ok {
			hosts = append(hosts, h)
		}
	}
	if post {
		send(s, c, hosts, items, "sends")
		return
	}
	if !shell.HasShort(c.Args, 'O', "") && !shell.HasLong(c.Args, "output-document") && !shell.HasShort(c.Args, 'P', "") && !shell.HasLong(c.Args, "directory-prefix") {
		// wget saves into the current directory.
		s.Write(c, s.Where(".", c.Cwd), "")
	}
	download(s, c, urls, hosts)
}

func judgeHTTPie(s *judge.Script, c *judge.Command) {
	var hosts []string
	var items []dataItem
	post := false
	for i, a := range c.Args[1:] {
		switch {
		case strings.HasPrefix(a, "-"):
		case i == 0 && (a == "GET" || a == "HEAD"):
		case i == 0 && strings.ToUpper(a) == a && len(a) <= 7:
			post = true
		case len(hosts) == 0 && strings.HasPrefix(a, ":") && (len(a) == 1 || a[1] == '/' || a[1] >= '0' && a[1] <= '9'):
			// HTTPie's shorthand for localhost (:8080/api).
			hosts = append(hosts, "localhost")
		case strings.Contains(a, "==") && !strings.ContainsAny(a[:strings.Index(a, "==")], "@:"):
			// A query parameter (limit==5): part of the URL, not data.
		default:
			if h, ok := network.URLHost(a); ok && len(hosts) == 0 && !strings.ContainsAny(a, "=@") {
				hosts = append(hosts, h)
				continue
			}
			if strings.Contains(a, "@") {
				_, f, _ := strings.Cut(a, "@")
				items = append(items, dataItem{file: f})
				post = true
			} else if strings.Contains(a, "=") {
				items = append(items, dataItem{value: a, raw: rawOf(c, a)})
				post = true
			}
		}
	}
	if post {
		send(s, c, hosts, items, "sends")
		return
	}
	s.Allow(c.Name)
}

func judgeNc(s *judge.Script, c *judge.Command) {
	if command.Does(c.Args)&command.ConnectsProgram != 0 || strings.Contains(strings.Join(c.Args, " "), "EXEC:") ||
		strings.Contains(strings.Join(c.Args, " "), "SYSTEM:") {
		s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` connects a shell or program to the network (a remote shell)")
		return
	}
	if shell.HasShort(c.Args, 'l', "pswiqxXIOTVWLMbce") || shell.HasLong(c.Args, "listen") || strings.Contains(strings.Join(c.Args, " "), "LISTEN") {
		s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` listens for network connections")
		return
	}
	ops := shell.Operands(c.Args, "pswiqxXIOTVWLMbe")
	var hosts []string
	if c.Name == "socat" {
		for _, o := range ops {
			if strings.Contains(strings.ToUpper(o), "TCP") || strings.Contains(strings.ToUpper(o), "UDP") || strings.Contains(strings.ToUpper(o), "SSL") {
				parts := strings.Split(o, ":")
				if len(parts) > 1 {
					hosts = append(hosts, parts[1])
				}
			}
		}
	} else if len(ops) > 0 {
		hosts = append(hosts, ops[0])
	}
	if shell.HasShort(c.Args, 'z', "pswiqxXIOTVWLMbce") {
		for _, h := range hosts {
			if !network.Local(h) {
				s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` scans ports of "+h)
				return
			}
		}
		s.Allow(c.Name + " -z")
		return
	}
	send(s, c, hosts, []dataItem{{file: "-"}}, "sends its input")
}

func judgeSSH(s *judge.Script, c *judge.Command) {
	for _, f := range []byte{'R', 'L', 'D', 'w'} {
		if shell.HasShort(c.Args, f, "BbcDEeFIiJLlmOopQRSWw") {
			s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` opens a tunnel")
			return
		}
	}
	ops := shell.Operands(c.Args, "BbcDEeFIiJLlmOopQRSWw")
	if len(ops) == 0 {
		s.Allow(c.Name)
		return
	}
	host := ops[0]
	if i := strings.IndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if network.Local(host) {
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` logs in to this machine over SSH")
		return
	}
	if c.Sc.Pipeline > 0 && c.Sc.Stage > 0 {
		c.Sink = true
		s.RemoteSink = true
	}
	s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs commands on "+host)
}

// remotePath reports whether an scp/rsync operand names a remote host.
func remotePath(w string) bool {
	if strings.HasPrefix(w, "rsync://") || strings.HasPrefix(w, "scp://") || strings.HasPrefix(w, "sftp://") ||
		strings.HasPrefix(w, "s3://") || strings.HasPrefix(w, "gs://") || strings.HasPrefix(w, "ftp://") {
		return true
	}
	if strings.HasPrefix(w, "/") || strings.HasPrefix(w, ".") || strings.HasPrefix(w, "~") || strings.HasPrefix(w, "$") {
		return false
	}
	i := strings.IndexByte(w, ':')
	return i > 0 && !strings.Contains(w[:i], "/")
}

func judgeScp(s *judge.Script, c *judge.Command) {
	switch c.Name {
	case "lftp", "ftp", "tftp", "smbclient", "sftp":
		s.RemoteSink = true
		s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` transfers files with a remote host")
		return
	case "rclone":
		sub := ""
		if ops := shell.Operands(c.Args, ""); len(ops) > 0 {
			sub = ops[0]
		}
		switch sub {
		case "ls", "lsd", "lsl", "lsf", "lsjson", "listremotes", "version", "size", "about", "tree", "md5sum", "sha1sum", "hashsum", "check":
			s.Allow("rclone")
			return
		case "purge", "delete", "deletefile", "rmdir", "rmdirs", "cleanup", "dedupe":
			s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` deletes files of a remote")
			return
		case "copy", "sync", "move", "copyto", "moveto", "bisync", "copyurl", "mount", "serve":
		default:
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"`: rclone "+sub+" is not a subcommand the first pass knows")
			return
		}
	}
	ops := shell.Operands(c.Args, "cFiJlmoPSDBeTf", "rsh", "rsync-path", "exclude", "include", "filter", "files-from",
		"port", "password-file", "exclude-from", "include-from", "backup-dir", "suffix", "log-file", "chmod", "chown", "timeout", "bwlimit", "partial-dir", "temp-dir", "compare-dest", "link-dest")
	if c.Name == "rclone" && len(ops) > 0 {
		ops = ops[1:]
	}
	if len(ops) < 2 {
		s.Allow(c.Name)
		return
	}
	dst := ops[len(ops)-1]
	srcs := ops[:len(ops)-1]
	if !remotePath(dst) {
		for _, src := range srcs {
			if !remotePath(src) {
				copySource(s, c, src)
			}
		}
		if shell.HasLong(c.Args, "delete", "delete-before", "delete-after", "delete-during", "delete-excluded", "remove-source-files") {
			pl := s.Where(dst, c.Cwd)
			if pl.Zone != judge.ZWork && pl.Zone != judge.ZTmp {
				s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes files in "+dst+" that the source lacks")
			}
		}
		s.Write(c, s.Where(dst, c.Cwd), "")
		s.Allow(c.Name + " copies files here")
		return
	}
	host := dst
	if i := strings.IndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	if i := strings.IndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	s.RemoteSink = true
	for _, src := range srcs {
		if remotePath(src) {
			continue
		}
		pl := s.Where(src, c.Cwd)
		if !pl.Item && (pl.Zone == judge.ZHome && (pl.Abs == s.Home && s.Home != "" || pl.Abs == "~") || pl.Abs == "/" || pl.Abs == "/home" || pl.Abs == "/Users") {
			s.Deny(vocab.Exfiltration, "`"+c.Text+"` copies "+judge.OrName(pl.Abs, "the home directory")+" (keys included) to "+host)
			return
		}
		if level, what := s.Secret(pl); level > secret.None {
			s.Deny(vocab.Exfiltration, "`"+c.Text+"` copies "+what+" to "+host)
			return
		}
		if t := s.Tainted[pl.Abs]; t > secret.None {
			s.Deny(vocab.Exfiltration, "`"+c.Text+"` copies an archive of credentials to "+host)
			return
		}
	}
	s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` copies files to "+host)
}

func judgeMail(s *judge.Script, c *judge.Command) {
	var items []dataItem
	for _, f := range append(shell.OptValues(c.Args, "-a", "attach"), shell.OptValues(c.Args, "-A", "")...) {
		items = append(items, dataItem{file: f})
	}
	items = append(items, dataItem{file: "-"})
	send(s, c, nil, items, "mails")
}

func judgeTunnel(s *judge.Script, c *judge.Command) {
	s.RemoteSink = true
	s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` exposes a local service to the internet")
}

func judgeSniffer(s *judge.Script, c *judge.Command) {
	if c.Name == "tcpdump" && (shell.HasShort(c.Args, 'D', "") || shell.HasShort(c.Args, 'r', "cCiwWsEFMTyzZ")) {
		s.Allow("tcpdump")
		return
	}
	s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` captures network traffic, which can hold credentials")
}

func judgeAttackTool(s *judge.Script, c *judge.Command) {
	s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` runs "+c.Name+", an attack or reconnaissance tool")
}

func judgeCredentialDumper(s *judge.Script, c *judge.Command) {
	s.Deny(vocab.CredentialProbing, "`"+c.Text+"` runs "+c.Name+", a password cracking or credential dumping tool")
}

// offensiveScript reports whether a script file's name is that of a known
// credential dumper or attack tool.
func offensiveScript(file string) string {
	b := strings.ToLower(judge.ShortBase(file))
	if i := strings.LastIndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	switch b {
	case "lazagne", "mimikatz", "secretsdump", "linpeas", "linenum", "pspy", "responder", "hashcat", "john",
		"firefox_decrypt", "chrome_decrypt", "chromepass", "keychaindump", "mimipenguin", "credentialdump":
		return b
	}
	return ""
}
