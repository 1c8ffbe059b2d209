package command

import (
	"bytes"
	"strings"
	"sync"
)

// grammars are the option grammars of the programs warden knows, by base
// name. It is a registry built once, on first use (Lookup) rather than
// when warden starts — a sandbox's helper, which is warden started again,
// never needs it — and only read afterwards.
var (
	grammars     map[string]*Grammar
	loadGrammars sync.Once
)

// spec builds a grammar from two lists of space-separated option
// descriptions:
//
//   - short: "r=recursive" (the flag -r sets recursive), "o:output" (-o
//     takes a value), "D=delete+force" (one letter, two names);
//   - long: "recursive" (a flag named as spelled), "silent=quiet" (--silent
//     sets quiet), "output:" (takes a value), "force-with-lease?" (takes a
//     value only as =value).
//
// GNU-style permutation (options after operands) is on; see fixed.
func spec(short, long string) *Grammar {
	shorts, longs := strings.Fields(short), strings.Fields(long)
	g := &Grammar{permute: true}
	// The options' names share one array (Grammar.names): a grammar is
	// a few objects for the garbage collector, not one for each name.
	g.names = make([]string, 0, len(shorts)+len(longs)+strings.Count(short, "+")+strings.Count(long, "+"))
	names := func(s string) option {
		at := len(g.names)
		for n := range strings.SplitSeq(s, "+") {
			g.names = append(g.names, n)
		}
		return option{at: uint16(at), n: uint16(len(g.names) - at)}
	}
	g.shortOpts = make([]option, 0, len(shorts))
	g.longOpts = make([]option, 0, len(longs))
	letters := make([]byte, 0, len(shorts))
	for _, s := range shorts {
		var o option
		if len(s) == 1 {
			o = names("-" + s)
		} else {
			o = names(s[2:])
			o.arg, o.optArg = s[1] == ':', s[1] == '?'
		}
		if i := bytes.IndexByte(letters, s[0]); i >= 0 {
			g.shortOpts[i] = o // a letter described twice: the last wins
			continue
		}
		letters = append(letters, s[0])
		g.shortOpts = append(g.shortOpts, o)
	}
	g.shortLetters = string(letters)
	g.long.Grow(len(longs))
	for _, l := range longs {
		arg, optArg := false, false
		switch {
		case strings.HasSuffix(l, ":"):
			arg, l = true, l[:len(l)-1]
		case strings.HasSuffix(l, "?"):
			optArg, l = true, l[:len(l)-1]
		}
		name, canon, ok := strings.Cut(l, "=")
		if !ok {
			canon = name
		}
		o := names(canon)
		o.arg, o.optArg = arg, optArg
		if i, added := g.long.Add(name); !added {
			g.longOpts[i] = o // a name described twice: the last wins
			continue
		}
		g.longOpts = append(g.longOpts, o)
	}
	return g
}

// fixed turns permutation off: the first operand ends the options.
func (g *Grammar) fixed() *Grammar {
	g.permute = false
	return g
}

// with adds subcommands; a name "i=install" is an alias of install.
func (g *Grammar) with(subs map[string]*Grammar) *Grammar {
	if g.subs == nil {
		g.subs = map[string]*Grammar{}
	}
	for names, s := range subs {
		list := strings.Split(names, "|")
		for i, n := range list {
			if i == 0 {
				g.subs[n] = s
				continue
			}
			alias := *s
			alias.canon = list[0]
			g.subs[n] = &alias
		}
	}
	return g
}

// flags is a grammar of a subcommand with no known options of its own
// (unknown options still parse, flagged Unknown).
func flags() *Grammar { return spec("", "") }

func register(g *Grammar, names ...string) {
	for _, n := range names {
		grammars[n] = g
	}
}

// The grammars of git's global options and of the subcommands whose
// options decide what they do.
func gitGrammar() *Grammar {
	g := spec("C:dir c:config p=paginate P=no-pager h=help v=version",
		"git-dir: work-tree: namespace: config-env: exec-path? super-prefix: list-cmds: "+
			"paginate no-pager bare no-replace-objects literal-pathspecs glob-pathspecs noglob-pathspecs "+
			"icase-pathspecs no-optional-locks no-advice html-path man-path info-path version help attr-source:").fixed()
	g.with(map[string]*Grammar{
		"push": spec("f=force d=delete u=set-upstream n=dry-run v=verbose q=quiet o:push-option 4=ipv4 6=ipv6",
			"force delete set-upstream dry-run verbose quiet push-option: force-with-lease? force-if-includes "+
				"mirror all branches tags follow-tags prune atomic no-verify verify repo: receive-pack: exec=receive-pack: "+
				"porcelain progress no-force-with-lease signed? recurse-submodules: thin no-thin ipv4 ipv6"),
		"reset": spec("q=quiet p=patch N=intent-to-add", "hard soft mixed merge keep quiet patch recurse-submodules? no-recurse-submodules pathspec-from-file: intent-to-add"),
		"clean": spec("f=force d=directories x=ignored-too X=only-ignored n=dry-run q=quiet i=interactive e:exclude",
			"force dry-run quiet interactive exclude:"),
		"branch": spec("d=delete D=delete+force f=force m=move M=move+force c=copy C=copy+force r=remotes a=all l=list v=verbose q=quiet t=track u:set-upstream-to",
			"delete force move copy remotes all list verbose quiet track? no-track set-upstream-to: unset-upstream "+
				"edit-description contains: no-contains: merged? no-merged? points-at: sort: format: color? no-color column? show-current create-reflog"),
		"checkout": spec("b:new-branch B:force-new-branch f=force q=quiet m=merge p=patch t=track l=create-reflog",
			"force quiet merge patch track? no-track detach orphan: ours theirs conflict: ignore-other-worktrees overwrite-ignore no-overwrite-ignore pathspec-from-file:"),
		"switch": spec("c:create C:force-create f=discard-changes q=quiet m=merge t=track d=detach",
			"create: force-create: discard-changes force=discard-changes quiet merge track? no-track detach orphan: guess no-guess"),
		"restore": spec("s:source S=staged W=worktree p=patch q=quiet", "source: staged worktree patch quiet ours theirs merge overlay no-overlay ignore-unmerged pathspec-from-file:"),
		"commit": spec("a=all m:message F:file C:reuse-message c:reedit-message n=no-verify q=quiet v=verbose s=signoff S?gpg-sign e=edit i=include o=only p=patch u?untracked-files t:template",
			"all message: file: reuse-message: reedit-message: no-verify verify quiet verbose signoff amend author: date: gpg-sign? no-gpg-sign edit no-edit include only patch untracked-files? template: allow-empty allow-empty-message fixup: squash: no-post-rewrite cleanup: dry-run"),
		"rebase": spec("i=interactive x:exec q=quiet v=verbose f=force-rebase",
			"interactive exec: onto: root quiet verbose force-rebase abort continue skip autosquash no-autosquash autostash no-autostash"),
		"fetch":         spec("f=force p=prune q=quiet v=verbose t=tags n=no-tags", "force prune all quiet verbose tags no-tags depth: upload-pack: dry-run"),
		"pull":          spec("f=force r?rebase q=quiet v=verbose", "force rebase? no-rebase ff ff-only no-ff quiet verbose all depth: upload-pack: autostash"),
		"clone":         spec("b:branch o:origin u:upload-pack c:config q=quiet v=verbose n=no-checkout l=local s=shared", "branch: origin: upload-pack: config: quiet verbose no-checkout local shared depth: bare mirror recursive recurse-submodules? template: reference: separate-git-dir: filter:"),
		"config":        spec("f:file l=list e=edit", "global system local worktree file: blob: list edit add get get-all get-regexp unset unset-all replace-all type: bool int path null show-origin show-scope includes no-includes default:"),
		"stash":         spec("u=include-untracked a=all k=keep-index p=patch q=quiet m:message", "include-untracked all keep-index no-keep-index patch quiet message: staged index").with(map[string]*Grammar{"drop": flags(), "clear": flags(), "pop": flags(), "apply": flags(), "push": flags(), "list": flags(), "show": flags(), "save": flags(), "branch": flags(), "create": flags(), "store": flags()}),
		"remote":        spec("v=verbose", "verbose").with(map[string]*Grammar{"add": spec("t:track m:master f=fetch", "tags no-tags mirror? fetch"), "remove|rm": flags(), "set-url": spec("", "push add delete"), "rename": flags(), "prune": flags(), "show": flags(), "get-url": flags()}),
		"tag":           spec("a=annotate d=delete f=force l=list m:message F:file s=sign u:local-user v=verify n?lines", "annotate delete force list message: file: sign local-user: verify"),
		"worktree":      flags().with(map[string]*Grammar{"add": spec("b:new-branch B:force-new-branch f=force d=detach", "force detach checkout no-checkout lock track no-track"), "remove": spec("f=force", "force"), "prune": flags(), "list": flags()}),
		"add":           spec("n=dry-run v=verbose f=force i=interactive p=patch e=edit u=update A=all N=intent-to-add", "dry-run verbose force interactive patch edit update all no-all ignore-removal intent-to-add refresh chmod:"),
		"rm":            spec("f=force n=dry-run r=recursive q=quiet", "force dry-run cached ignore-unmatch quiet sparse pathspec-from-file:"),
		"update-ref":    spec("d=delete m:message", "delete no-deref stdin create-reflog"),
		"gc":            spec("q=quiet", "aggressive auto prune? no-prune quiet force"),
		"reflog":        flags().with(map[string]*Grammar{"expire": spec("", "all expire: expire-unreachable: stale-fix rewrite updateref dry-run verbose"), "delete": flags(), "show": flags()}),
		"filter-branch": flags(),
		"credential":    flags().with(map[string]*Grammar{"fill": flags(), "approve": flags(), "reject": flags()}),
		"filter-repo":   flags(),
		"status":        spec("s=short b=branch u?untracked-files z v=verbose", "short branch porcelain? long verbose untracked-files? ignored? ignore-submodules? column? ahead-behind"),
		"log":           diffOutput(),
		"diff":          diffOutput(),
		"show":          diffOutput(),
		"diff-tree":     diffOutput(),
		"diff-index":    diffOutput(),
		"diff-files":    diffOutput(),
		"range-diff":    diffOutput(),
		"whatchanged":   diffOutput(),
		"format-patch":  spec("o:output-directory n=numbered N=no-numbered s=signoff k=keep-subject p=no-stat v:reroll-count", "output-directory: output: numbered no-numbered signoff keep-subject no-stat reroll-count: stdout cover-letter to: cc: from? subject-prefix: suffix: base:"),
		"archive":       spec("o:output v=verbose l=list", "output: format: prefix: remote: exec: list verbose worktree-attributes add-file: add-virtual-file:"),
		"difftool":      spec("y=no-prompt x:extcmd t:tool g=gui d=dir-diff", "no-prompt prompt extcmd: tool: tool-help gui no-gui dir-diff symlinks no-symlinks trust-exit-code no-trust-exit-code"),
		"grep": spec("a=text c=count e:regexp f:file h H i=ignore-case I l=files-with-matches L=files-without-match n=line-number o=only-matching q=quiet r=recursive v=invert-match w=word-regexp z=null E=extended-regexp F=fixed-strings G=basic-regexp P=perl-regexp A:after-context B:before-context C:context m:max-count O?open-files-in-pager W=function-context p=show-function",
			"open-files-in-pager? text count regexp: file: ignore-case files-with-matches files-without-match line-number only-matching quiet recursive invert-match word-regexp null extended-regexp fixed-strings basic-regexp perl-regexp after-context: before-context: context: max-count: function-context show-function cached untracked no-index index exclude-standard no-exclude-standard recurse-submodules max-depth: threads: column heading break full-name and or not all-match"),
		"bisect":    flags().with(map[string]*Grammar{"run": flags().fixed(), "start": flags(), "good|old": flags(), "bad|new": flags(), "skip": flags(), "reset": flags(), "log": flags(), "replay": flags(), "visualize|view": flags(), "terms": flags()}),
		"ls-remote": spec("h=heads t=tags q=quiet", "heads tags refs quiet upload-pack: exec=upload-pack: get-url symref sort: server-option:"),
		"submodule": spec("q=quiet", "quiet").with(map[string]*Grammar{"update": flags(), "add": flags(), "foreach": flags(), "init": flags(), "deinit": spec("f=force", "force all"), "sync": flags(), "status": flags()}),
	})
	return g
}

// diffOutput is the grammar of git's commands that print a diff or a log:
// their many formatting options are not listed, but --output writes the
// output to a file.
func diffOutput() *Grammar { return spec("", "output:") }

// registerAll builds the grammars registry.
func registerAll() {
	grammars = map[string]*Grammar{}
	indexEffects()
	register(gitGrammar(), "git")

	register(spec("r=recursive R=recursive f=force i=interactive I=interactive-once d=dir v=verbose",
		"recursive force interactive? dir verbose one-file-system no-preserve-root preserve-root? help version"), "rm")
	register(spec("p=parents v=verbose", "ignore-fail-on-non-empty parents verbose"), "rmdir")
	register(spec("R=recursive c=changes f=silent v=verbose H L P",
		"recursive changes silent quiet=silent verbose reference: preserve-root no-preserve-root dereference no-dereference"), "chmod")
	register(spec("R=recursive c=changes f=silent v=verbose h=no-dereference H L P",
		"recursive changes silent quiet=silent verbose reference: from: preserve-root no-preserve-root dereference no-dereference"), "chown", "chgrp")
	register(spec("r=recursive R=recursive a=archive f=force i=interactive n=no-clobber v=verbose p=preserve-all l=link s=symbolic-link u=update b=backup t:target-directory T=no-target-directory S:suffix L=dereference P=no-dereference d=no-dereference+preserve-links x=one-file-system",
		"recursive archive force interactive no-clobber verbose link symbolic-link update? backup? target-directory: no-target-directory suffix: dereference no-dereference preserve? no-preserve: parents remove-destination sparse: reflink? attributes-only one-file-system strip-trailing-slashes"), "cp")
	register(spec("f=force i=interactive n=no-clobber v=verbose u=update b=backup t:target-directory T=no-target-directory S:suffix",
		"force interactive no-clobber verbose update? backup? target-directory: no-target-directory suffix: strip-trailing-slashes exchange no-copy"), "mv")
	register(spec("s=symbolic f=force n=no-dereference i=interactive v=verbose b=backup t:target-directory T=no-target-directory S:suffix r=relative L=logical P=physical",
		"symbolic force no-dereference interactive verbose backup? target-directory: no-target-directory suffix: relative logical physical"), "ln")
	register(spec("p=parents m:mode v=verbose Z", "parents mode: verbose context?"), "mkdir")
	register(spec("a=append i=ignore-interrupts p", "append ignore-interrupts output-error?"), "tee")
	register(spec("n=dry-run u=remove v=verbose x=exact z=zero s:size f=force", "iterations: random-source: size: remove? verbose exact zero force"), "shred")

	register(spec("X:request d:data F:form H:header o:output O=remote-name T:upload-file u:user A:user-agent e:referer b:cookie c:cookie-jar x:proxy k=insecure L=location s=silent S=show-error f=fail i=include I=head v=verbose m:max-time w:write-out K:config E:cert r:range C:continue-at z:time-cond G=get U:proxy-user Q:quote Y:speed-limit y:speed-time t:telnet-option q=disable n=netrc 0=http1.0 1=tlsv1 2=sslv2 3=sslv3 4=ipv4 6=ipv6 N=no-buffer J=remote-header-name R=remote-time Z=parallel",
		"request: data: data-raw: data-binary: data-urlencode: data-ascii=data: json: form: form-string: header: output: remote-name remote-name-all upload-file: user: user-agent: referer: cookie: cookie-jar: proxy: insecure location location-trusted silent show-error fail fail-with-body include head verbose max-time: connect-timeout: write-out: config: cert: key: cacert: capath: range: continue-at: retry: retry-delay: retry-max-time: url: get compressed output-dir: create-dirs netrc netrc-file: oauth2-bearer: proxy-insecure doh-insecure unix-socket: abstract-unix-socket: resolve: connect-to: interface: limit-rate: max-filesize: proto: proto-redir: http1.1 http2 http3 tlsv1.2 tlsv1.3 trace: trace-ascii: stderr: dump-header: no-progress-meter progress-bar raw path-as-is globoff"),
		"curl")
	register(spec("O:output-document o:output-file a:append-output q=quiet v=verbose c=continue P:directory-prefix i:input-file N=timestamping r=recursive l:level  U:user-agent e:execute b=background t:tries T:timeout m=mirror k=convert-links p=page-requisites x=force-directories  S=server-response 4=inet4-only 6=inet6-only",
		"output-document: output-file: append-output: quiet verbose continue directory-prefix: input-file: timestamping recursive level: no-parent user-agent: execute: background tries: timeout: mirror convert-links page-requisites force-directories no-directories no-clobber server-response post-data: post-file: body-data: body-file: method: header: user: password: http-user: http-password: no-check-certificate ca-certificate: certificate: private-key: load-cookies: save-cookies: keep-session-cookies referer: spider content-disposition inet4-only inet6-only show-progress progress:"),
		"wget")

	dockerRun := spec("v:volume e:env p:publish P=publish-all w:workdir u:user d=detach i=interactive t=tty m:memory h:hostname l:label a:attach c:cpu-shares",
		"volume: mount: env: env-file: publish: publish-all workdir: user: detach interactive tty rm name: network: net=network: pid: ipc: uts: userns: privileged cap-add: cap-drop: security-opt: device: entrypoint: memory: hostname: label: add-host: dns: platform: pull: restart: init read-only tmpfs: volumes-from: gpus: group-add: ulimit: cgroupns: runtime:").fixed()
	dockerExec := spec("d=detach e:env i=interactive t=tty u:user w:workdir", "detach env: env-file: interactive tty user: workdir: privileged").fixed()
	register(spec("H:host c:context D=debug l:log-level v=version", "host: context: config: debug log-level: tls tlsverify tlscacert: tlscert: tlskey: version help").fixed().with(map[string]*Grammar{
		"run": dockerRun, "create": dockerRun, "exec": dockerExec,
		"container": flags().fixed().with(map[string]*Grammar{"run": dockerRun, "create": dockerRun, "exec": dockerExec, "rm": spec("f=force v=volumes", "force volumes"), "prune": spec("f=force", "force filter:")}),
		"rm":        spec("f=force v=volumes l=link", "force volumes link"),
		"rmi":       spec("f=force", "force no-prune"),
		"system":    flags().with(map[string]*Grammar{"prune": spec("a=all f=force", "all force volumes filter:")}),
		"volume":    flags().with(map[string]*Grammar{"rm": spec("f=force", "force"), "prune": spec("a=all f=force", "all force filter:")}),
		"image":     flags().with(map[string]*Grammar{"rm": spec("f=force", "force"), "prune": spec("a=all f=force", "all force filter:")}),
		"push":      spec("a=all-tags q=quiet", "all-tags quiet platform: disable-content-trust"),
		"login":     spec("u:username p:password", "username: password: password-stdin"),
		"build":     spec("t:tag f:file q=quiet", "tag: file: quiet build-arg: secret: ssh: network: no-cache pull platform: target: progress: push load output:"),
	}), "docker", "podman")

	kubeGlobal := "n:namespace s:server v:v "
	kubeLong := "namespace: context: kubeconfig: cluster: user: server: token: as: as-group: certificate-authority: client-certificate: client-key: insecure-skip-tls-verify request-timeout: v: "
	register(spec(kubeGlobal+"A=all-namespaces", kubeLong+"all-namespaces").with(map[string]*Grammar{
		"delete|del":   spec(kubeGlobal+"f:filename l:selector R=recursive k:kustomize A=all-namespaces", kubeLong+"filename: selector: recursive kustomize: all all-namespaces force grace-period: now wait cascade? ignore-not-found dry-run? output:"),
		"apply":        spec(kubeGlobal+"f:filename l:selector R=recursive k:kustomize o:output", kubeLong+"filename: selector: recursive kustomize: prune all force server-side dry-run? output:"),
		"exec":         spec(kubeGlobal+"c:container i=stdin t=tty", kubeLong+"container: stdin tty"),
		"get":          spec(kubeGlobal+"o:output l:selector A=all-namespaces w=watch", kubeLong+"output: selector: all-namespaces watch show-labels"),
		"describe":     spec(kubeGlobal+"l:selector A=all-namespaces", kubeLong+"selector: all-namespaces"),
		"logs":         spec(kubeGlobal+"c:container f=follow p=previous l:selector", kubeLong+"container: follow previous selector: tail: since:"),
		"scale":        spec(kubeGlobal+"f:filename", kubeLong+"filename: replicas: current-replicas: all"),
		"drain":        spec(kubeGlobal, kubeLong+"force ignore-daemonsets delete-emptydir-data delete-local-data grace-period: timeout:"),
		"create":       spec(kubeGlobal+"f:filename", kubeLong+"filename: dry-run? output:"),
		"rollout":      spec(kubeGlobal, kubeLong),
		"port-forward": spec(kubeGlobal, kubeLong+"address:"),
		"cp":           spec(kubeGlobal+"c:container", kubeLong+"container:"),
		"config":       spec(kubeGlobal, kubeLong),
		"patch":        spec(kubeGlobal+"p:patch f:filename", kubeLong+"patch: filename: type:"),
	}), "kubectl", "oc")

	npmInstall := spec("g=global D=save-dev P=save-prod E=save-exact O=save-optional S=save", "global save-dev save-prod save-exact save-optional save no-save registry: prefix: ignore-scripts force legacy-peer-deps omit: include: workspace: workspaces location:")
	register(spec("g=global C:prefix w:workspace", "global prefix: workspace: workspaces registry: loglevel: userconfig: cache: silent quiet verbose").with(map[string]*Grammar{
		"install|i|add|in|ins|inst|insta|instal|isnt|isnta|isntal|isntall": npmInstall,
		"ci|clean-install|ic|install-clean|isntall-clean":                  npmInstall,
		"uninstall|un|unlink|remove|rm|r":                                  npmInstall,
		"update|up|upgrade|udpate":                                         npmInstall,
		"run|run-script|rum|urn":                                           spec("w:workspace", "workspace: workspaces if-present ignore-scripts silent"),
		"exec|x":                                                           spec("c:call w:workspace", "call: package: workspace: yes no"),
		"publish":                                                          spec("", "tag: access: dry-run otp: registry: provenance"),
		"test|t|tst":                                                       flags(),
		"config|c":                                                         flags().with(map[string]*Grammar{"set": flags(), "get": flags(), "delete": flags(), "list|ls": flags(), "edit": flags()}),
		"cache":                                                            flags().with(map[string]*Grammar{"clean": spec("", "force"), "verify": flags(), "ls": flags(), "add": flags()}),
		"login|adduser|add-user":                                           flags(),
		"token":                                                            flags(),
	}), "npm")

	pipInstall := spec("r:requirement c:constraint e:editable t:target U=upgrade i:index-url q=quiet v=verbose",
		"requirement: constraint: editable: target: upgrade index-url: extra-index-url: find-links: trusted-host: user root: prefix: no-deps pre break-system-packages force-reinstall ignore-installed no-index no-cache-dir quiet verbose upgrade-strategy: require-hashes only-binary: no-binary: proxy: cert: isolated")
	register(spec("q=quiet v=verbose", "proxy: cert: client-cert: isolated quiet verbose require-virtualenv python: disable-pip-version-check no-cache-dir cache-dir: timeout: retries: trusted-host: index-url: log:").with(map[string]*Grammar{
		"install": pipInstall, "download": pipInstall, "wheel": pipInstall,
		"uninstall": spec("r:requirement y=yes", "requirement: yes break-system-packages root-user-action:"),
		"config":    flags().with(map[string]*Grammar{"set": flags(), "get": flags(), "unset": flags(), "list": flags(), "edit": flags(), "debug": flags()}),
	}), "pip", "pip3")

	aptInstall := spec("y=assume-yes q=quiet s=simulate f=fix-broken o:option t:target-release", "assume-yes yes=assume-yes quiet simulate fix-broken option: target-release: no-install-recommends install-recommends allow-downgrades allow-remove-essential allow-change-held-packages allow-unauthenticated reinstall purge force-yes autoremove")
	register(spec("y=assume-yes q=quiet s=simulate o:option c:config-file t:target-release", "assume-yes yes=assume-yes quiet simulate option: config-file: target-release:").with(map[string]*Grammar{
		"install": aptInstall, "remove": aptInstall, "purge": aptInstall, "autoremove": aptInstall, "upgrade": aptInstall,
		"dist-upgrade|full-upgrade": aptInstall, "update": aptInstall, "reinstall": aptInstall,
	}), "apt-get", "apt")

	sysctl := func() *Grammar { return spec("q=quiet", "now user system global quiet no-block force runtime") }
	register(spec("H:host M:machine q=quiet f=force", "host: machine: user system global quiet no-block now force no-pager no-ask-password runtime").fixed().with(map[string]*Grammar{
		"stop": sysctl(), "disable": sysctl(), "mask": sysctl(), "kill": spec("s:signal", "signal: kill-whom: kill-value:"), "start": sysctl(), "enable": sysctl(),
		"restart": sysctl(), "reload": sysctl(), "status": sysctl(), "daemon-reload": sysctl(), "isolate": sysctl(), "edit": sysctl(), "link": sysctl(),
		"reboot": sysctl(), "poweroff": sysctl(), "halt": sysctl(), "set-default": sysctl(),
	}), "systemctl")

	register(spec("1=protocol1 2=protocol2 4=ipv4 6=ipv6 A=forward-agent a=no-forward-agent C=compress f=background g=gateway-ports K k M N=no-command n=null-stdin q=quiet s=subsystem T=no-tty t=tty V=version v=verbose X=x11 x Y Z "+
		"B:bind-interface b:bind-address c:cipher D:dynamic E:log-file e:escape F:config-file I:pkcs11 i:identity J:jump L:local-forward l:login m:mac O:control o:option p:port Q:query R:remote-forward S:control-path W:stdio-forward w:tunnel", "").fixed(), "ssh")
	register(spec("3 4=ipv4 6=ipv6 A B C=compress O q=quiet R r=recursive T p=preserve v=verbose c:cipher D:sftp-server F:config-file i:identity J:jump l:limit o:option P:port S:program X:sftp-option", ""), "scp")
	register(spec("a=archive r=recursive v=verbose z=compress n=dry-run e:rsh u=update l=links L=copy-links p=perms t=times g=group o=owner D=devices+specials P=partial+progress q=quiet h=human-readable c=checksum",
		"archive recursive verbose compress dry-run rsh: update links copy-links perms times group owner devices specials partial progress quiet human-readable checksum delete delete-before delete-during delete-after delete-excluded remove-source-files rsync-path: exclude: include: exclude-from: include-from: files-from: filter: backup backup-dir: suffix: force ignore-errors inplace"), "rsync")
	// netcat in its variants (OpenBSD, traditional, nmap's ncat): -e and -c
	// run a program or a shell command on the connection.
	register(spec("e:exec c:sh-exec p:port s:source w:wait i:interval q:quit x:proxy X:proxy-type I:recv-buf O:send-buf T:tos V:rtable W:recv-count L:L M:ttl b:bind "+
		"l=listen k=keep-open u=udp n=nodns v=verbose z=zero d=detach N=shutdown D=debug r=randomize t=telnet C=crlf U=unixsock 4=ipv4 6=ipv6 h=help",
		"exec: sh-exec: lua-exec: listen keep-open udp source: wait: proxy: proxy-type: verbose nodns zero-io send-only recv-only"), "nc", "ncat", "netcat")
	register(spec("i?in-place n=quiet e:expression f:file E=regexp-extended r=regexp-extended s=separate z=null-data u=unbuffered l:line-length",
		"in-place? quiet silent=quiet expression: file: regexp-extended separate null-data unbuffered posix debug sandbox follow-symlinks line-length:"), "sed")
	register(spec("s:signal l=list L=table n:signal", "signal: list table"), "kill")
	register(spec("P:pager H?html C:config-file M:manpath S:sections s:sections e:extension L:locale m:systems p:preprocessor r:prompt E:encoding R:recode T?troff-device X?gxditview a=all k=apropos K=global-apropos f=whatis l=local-file w=where W=where-cat c=catman d=debug D=default h=help i=ignore-case I=match-case t=troff Z=ditroff u=update 7=ascii",
		"pager: html? config-file: manpath: sections: extension: locale: systems: preprocessor: prompt: encoding: recode: troff-device? gxditview? all apropos global-apropos whatis local-file where location=where where-cat location-cat=where-cat catman debug default help ignore-case match-case troff ditroff update ascii regex wildcard names-only no-subpages no-hyphenation no-justification nh nj"), "man")
	register(spec("u:user l=list r=remove e=edit i=interactive", ""), "crontab")
	register(spec("f:file C:directory n=just-print B=always-make k=keep-going s=silent j?jobs i=ignore-errors e=environment-overrides I:include-dir W:what-if o:old-file q=question t=touch", "file: makefile=file directory: dry-run=just-print just-print recon=just-print always-make keep-going silent quiet=silent jobs? ignore-errors environment-overrides include-dir: what-if: old-file: question touch eval:"), "make", "gmake")
}
