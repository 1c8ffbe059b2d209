package dryrun

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/safetext"
)

// summaryItems is how many paths of each kind Summary names.
const summaryItems = 10

// Summary describes rep for a person in a few lines: what the command
// would have written, created, deleted, renamed and changed the mode of,
// the programs and destinations recorded, and how it ended. Paths are
// escaped (a file name cannot draw on the terminal).
func Summary(rep effect.Report) string {
	var b strings.Builder
	list := func(verb string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "would %s %d: ", verb, len(items))
		for i, it := range items {
			if i == summaryItems {
				fmt.Fprintf(&b, ", … %d more", len(items)-i)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(oneLine(it))
		}
		b.WriteByte('\n')
	}
	list("write", rep.Writes)
	list("create", rep.Creates)
	list("delete", rep.Deletes)
	var renames, chmods, execs, nets []string
	for _, r := range rep.Renames {
		renames = append(renames, r.From+" → "+r.To)
	}
	for _, c := range rep.Chmods {
		s := c.Path
		if c.Mode != "" {
			s += " " + c.Was + " → " + c.Mode
		}
		if c.UID != nil || c.GID != nil {
			s += " (owner)"
		}
		chmods = append(chmods, s)
	}
	for _, e := range rep.Execs {
		execs = append(execs, strings.Join(e.Argv, " "))
	}
	for _, d := range rep.Network {
		switch {
		case d.Name != "":
			nets = append(nets, "look up "+d.Name)
		case d.Port != 0:
			nets = append(nets, fmt.Sprintf("%s %s port %d", d.Op, d.Address, d.Port))
		default:
			nets = append(nets, d.Op+" "+d.Address)
		}
	}
	list("rename", renames)
	list("change the mode or owner of", chmods)
	list("open the credential stores", rep.Reads)
	list("run", execs)
	list("reach", nets)
	if b.Len() == 0 {
		b.WriteString("no change to files\n")
	}
	switch {
	case rep.TimedOut:
		b.WriteString("still running at the end of the budget: stopped\n")
	default:
		fmt.Fprintf(&b, "exit status %d\n", rep.Exit)
	}
	return b.String()
}

// oneLine is s escaped for a terminal, on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(safetext.Escape(s))
}
