package judge

import (
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/vocab"
)

// run judges a command by a mechanism of the programs file: reads,
// inspects, harmless, or subcommands with effects.
func (p *program) run(s *Script, c *Command) {
	switch p.does {
	case "reads", "inspects":
		for _, o := range operands(c.Args, p.valueShort, p.valueLong) {
			if o == "-" && p.does == "reads" {
				continue
			}
			s.Read(c, o, p.does == "reads")
		}
		s.Allow(c.Name)
		return
	case "harmless":
		s.Allow(c.Name)
		return
	}
	ops := operands(c.Args, p.valueShort, p.valueLong)
	word, effect, listed := "", p.def, false
	if len(ops) > 0 {
		word = ops[0]
		if e, ok := p.subs[word]; ok {
			effect, listed, ops = e, true, ops[1:]
		}
	}
	what := c.Name
	if word != "" {
		what += " " + word
	}
	src := " (" + p.at + ")"
	if !listed && effect == "" {
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"`: "+OrName(word, "no subcommand")+" is not a subcommand the programs file lists for "+c.Name+src)
		return
	}
	if !listed {
		src = " (default of " + p.at + ")"
	}
	switch effect {
	case "read", "write":
		for _, o := range ops {
			switch p.operands {
			case "read":
				s.Read(c, o, true)
			case "write":
				s.Write(c, s.Where(o, c.Cwd), "")
			}
		}
		if pl := s.Where(".", c.Cwd); effect == "write" && pl.Zone != ZWork {
			s.Esc(vocab.Routine, Medium, "`"+c.Text+"` writes files of "+OrName(pl.Abs, "a directory")+", outside the workspace"+src)
			return
		}
		s.Allow(what + " (" + effect + ")")
	case "destroy":
		s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` destroys data, as the programs file says of "+what+src)
	case "network":
		s.Esc(vocab.Exfiltration, Low, "`"+c.Text+"` talks to other hosts, as the programs file says of "+what+src)
	case "runs_code":
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"` runs code whose text is not in the request, as the programs file says of "+what+src)
	case "credentials":
		s.Esc(vocab.CredentialProbing, Medium, "`"+c.Text+"` handles credentials, as the programs file says of "+what+src)
	default: // escalate
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"`: the programs file passes "+what+" on"+src)
	}
}

// operands returns the operands of args, skipping the values of the short
// options short and the long options long.
func operands(args []string, short string, long []string) []string {
	return shell.Operands(args, short, long...)
}
