//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestG1_ProbeRemembered checks that a successful probe is remembered on
// disk for the same facts only, and that a failure is never remembered
// (a remembered success can only make the helper fail closed; a
// remembered failure would weaken every command after it).
func TestG1_ProbeRemembered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "sandbox-probe")
	var starts int
	works := func(view bool) error { starts++; return nil }
	noView := func(view bool) error {
		starts++
		if view {
			return errors.New("mount_setattr: ENOSYS")
		}
		return nil
	}

	steps := []struct {
		key     string
		probe   func(bool) error
		starts  int // helper starts this step
		viewErr bool
	}{
		{"k1", works, 1, false},  // first time: probed, remembered
		{"k1", works, 0, false},  // remembered
		{"k1", noView, 0, false}, // remembered: not probed again
		{"k2", noView, 2, true},  // other facts: probed; a failure...
		{"k2", noView, 2, true},  // ...is not remembered
		{"k2", works, 1, false},  // a success replaces it
		{"k1", works, 1, false},  // the old facts are gone
		{"", works, 1, false},    // facts unknown: nothing remembered
	}
	for i, s := range steps {
		starts = 0
		nsErr, viewErr := cachedProbes(path, s.key, s.probe)
		if nsErr != nil || (viewErr != nil) != s.viewErr || starts != s.starts {
			t.Fatalf("step %d (%q): nsErr %v, viewErr %v, %d starts; want view error %v, %d starts",
				i, s.key, nsErr, viewErr, starts, s.viewErr, s.starts)
		}
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "k1\n" {
		t.Errorf("remembered %q (%v), want k1", data, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the cache directory holds %d entries, want the file alone", len(entries))
	}
}

// TestG1_ProbeKeyFacts checks that the key names what a probe's outcome
// depends on.
func TestG1_ProbeKeyFacts(t *testing.T) {
	key := probeKey()
	if key == "" {
		t.Skip("facts not readable here")
	}
	for _, want := range []string{"v" + probeCacheVersion + " ", "boot=", "euid=", "userns=user:[", "exe=", "max_user_namespaces=", "apparmor_restrict_unprivileged_userns="} {
		if !strings.Contains(key, want) {
			t.Errorf("key %q lacks %q", key, want)
		}
	}
	if key != probeKey() {
		t.Error("the key changes between two calls")
	}
}
