package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/task"
)

const transcriptImportUsage = `usage: warden transcript import [--db URL] FILE...

Loads JSONL transcripts into the store (--db, else $WARDEN_DB, else SQLite
at $WARDEN_HOME/warden.db), so that the panel shows and searches them.
Importing a transcript twice keeps one copy of each event. A transcript
must verify first, as "warden transcript verify" checks it: one that does
not is not imported (exit 2, "FILE:LINE: why" for its first bad line).
`

// transcriptImport implements `warden transcript import`.
func transcriptImport(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden transcript import", transcriptImportUsage, stderr)
	db := c.dbFlag()
	files, code, ok := c.parseSome(args, stdout, "FILE: the transcripts to import")
	if !ok {
		return code
	}
	ctx := context.Background()
	st, err := store.Open(ctx, store.URL(*db))
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	defer st.Close()
	code = exitOK
	for _, name := range files {
		// Only what warden wrote enters the store (SPEC L8); a last line
		// cut by a crash is reported by Import, as before.
		if _, err := task.VerifyTranscript(name); errors.As(err, new(*seal.ChainError)) {
			fmt.Fprintf(stderr, "warden: %v\n", err)
			code = exitUsage
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "warden: %v\n", err)
			code = exitError
			continue
		}
		n, err := st.Import(ctx, f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "warden: %s: %v (%d events stored before it)\n", name, err, n)
			code = max(code, exitError)
			continue
		}
		fmt.Fprintf(stdout, "%s: %d events\n", name, n)
	}
	return code
}
