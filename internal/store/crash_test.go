package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/storetest"
)

// envCrashChild, in the environment of the test binary, makes
// TestS3_CommittedEventSurvivesCrash the child that writes events to the
// database it names until it is killed.
const envCrashChild = "WARDEN_STORE_CRASH_CHILD"

// A process writing events is killed with SIGKILL; every event whose Write
// returned is in the store when it is opened again (SPEC S3: a crash loses
// no committed event).
func TestS3_CommittedEventSurvivesCrash(t *testing.T) {
	if url := os.Getenv(envCrashChild); url != "" {
		crashChild(url)
		return
	}
	ctx := context.Background()
	storetest.Run(t, func(t *testing.T, e storetest.Engine) {
		open(t, e.URL).Close() // migrated before the child starts
		cmd := exec.Command(os.Args[0], "-test.run=^TestS3_CommittedEventSurvivesCrash$", "-test.count=1")
		cmd.Env = append(os.Environ(), envCrashChild+"="+e.URL)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var acked []string
		sc := bufio.NewScanner(out)
		killed := false
		deadline := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
		defer deadline.Stop()
		for sc.Scan() {
			id, ok := strings.CutPrefix(sc.Text(), "written ")
			if !ok {
				continue
			}
			acked = append(acked, id)
			if len(acked) == 400 && !killed {
				killed = true
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("the child was not killed by SIGKILL: %v", err)
		}
		s := open(t, e.URL)
		missing := 0
		for _, id := range acked {
			run, _, _ := strings.Cut(id, "/")
			evID := strings.TrimPrefix(id, run+"/")
			var n int
			if err := s.db.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM events WHERE run_id = ? AND id = ?"), run, evID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				missing++
			}
		}
		var total int
		s.db.QueryRow("SELECT COUNT(*) FROM events").Scan(&total)
		t.Logf("%s: %d writes acknowledged before SIGKILL, %d events stored", e.Name, len(acked), total)
		if missing > 0 || len(acked) < 400 {
			t.Errorf("%d of %d acknowledged events missing after the crash", missing, len(acked))
		}
	})
}

// crashChild writes events from four goroutines to the store at url,
// printing each one's run and id once Write returned, until killed.
func crashChild(url string) {
	s, err := Open(context.Background(), url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := fmt.Sprint("crash-", g)
			for i := 1; ; i++ {
				e := ev(run, i, event.Info{Message: strings.Repeat("x", 200)})
				if err := s.Write(e); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				mu.Lock()
				os.Stdout.WriteString("written " + run + "/" + e.ID + "\n")
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
