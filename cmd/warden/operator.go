package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"

	"github.com/wardenhq/warden/internal/proof"
	"github.com/wardenhq/warden/internal/store"
)

const operatorUsage = `usage: warden operator add NAME [--db URL]
       warden operator list [--db URL]

Operators are the people whose credentials decide requests (SPEC S4).
"add" makes a new operator's credential, prints it once on stdout and
stores only its SHA-256 in the store (--db, else $WARDEN_DB, else SQLite at
$WARDEN_HOME/warden.db); "warden serve" on that store then takes it, in
the panel's login and as the API's bearer token, and records NAME as
decided_by on every decision made with it. "list" names the operators.
`

// operatorName is what an operator's name may be, compiled when first
// used: compiled in init, it cost every command, `warden hook` on each tool
// call included, about 0.15 ms.
var operatorName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)
})

// operatorCmd implements `warden operator add|list`.
func operatorCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "list" {
		return operatorList(args[1:], stdout, stderr)
	}
	return subcommand(args, "add", operatorUsage, operatorAdd, stdout, stderr)
}

// operatorAdd implements `warden operator add NAME`.
func operatorAdd(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden operator add", operatorUsage, stderr)
	db := c.dbFlag()
	pos, code, ok := c.parse(args, true, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.fail("want one NAME, got %d arguments", len(pos))
	}
	name := pos[0]
	if !operatorName().MatchString(name) {
		return c.fail("NAME %q: letters, digits and . _ @ - (at most 64, starting with a letter or digit)", name)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		fmt.Fprintf(stderr, "warden operator add: %v\n", err)
		return exitError
	}
	cred := "op-" + base64.RawURLEncoding.EncodeToString(b[:])
	return withStore("warden operator add", *db, stderr, func(ctx context.Context, st *store.Store) int {
		if err := st.AddOperator(ctx, name, proof.Hash(cred)); err != nil {
			fmt.Fprintf(stderr, "warden operator add: %v\n", err)
			if errors.Is(err, store.ErrExists) {
				return exitUsage
			}
			return exitError
		}
		fmt.Fprintln(stdout, cred)
		fmt.Fprintf(stderr, "warden operator add: %s's credential is above; it is shown this once (the store keeps its hash alone)\n", name)
		return exitOK
	})
}

// operatorList implements `warden operator list`.
func operatorList(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden operator list", operatorUsage, stderr)
	db := c.dbFlag()
	if code, ok := c.parseNone(args, stdout); !ok {
		return code
	}
	return withStore("warden operator list", *db, stderr, func(ctx context.Context, st *store.Store) int {
		ops, err := st.Operators(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "warden operator list: %v\n", err)
			return exitError
		}
		for _, o := range ops {
			fmt.Fprintf(stdout, "%s\t%s\n", o.Name, o.Created.Format("2006-01-02T15:04:05Z"))
		}
		return exitOK
	})
}

// withStore opens the store at the URL db (see store.URL), runs use on it
// and closes it; a store that does not open is an error of the command
// name, exit 1.
func withStore(name, db string, stderr io.Writer, use func(context.Context, *store.Store) int) int {
	ctx := context.Background()
	st, err := store.Open(ctx, store.URL(db))
	if err != nil {
		fmt.Fprintf(stderr, "%s: the store: %v\n", name, err)
		return exitError
	}
	defer st.Close()
	return use(ctx, st)
}
