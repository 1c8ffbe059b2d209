package wardenhome

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ScrubEnv takes the variables names out of this process's environment:
// it unsets them, and overwrites their values in the environment block the
// process started with, which /proc/PID/environ shows to every process of
// the same user (a tool warden runs without a sandbox among them). Go's
// own copy of the environment is unset, not overwritten, so the caller
// reads the values first. An environment block that cannot be rewritten
// is an error; the variables are unset all the same.
func ScrubEnv(names ...string) error {
	for _, n := range names {
		os.Unsetenv(n)
	}
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return fmt.Errorf("scrubbing the environment: %w", err)
	}
	// The fields after the command name, which may hold spaces: state is
	// field 3, env_start and env_end are fields 50 and 51.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return fmt.Errorf("scrubbing the environment: /proc/self/stat unreadable")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 49 {
		return fmt.Errorf("scrubbing the environment: /proc/self/stat has no env_start (Linux before 3.5)")
	}
	start, err1 := strconv.ParseInt(f[47], 10, 64)
	end, err2 := strconv.ParseInt(f[48], 10, 64)
	if err1 != nil || err2 != nil || end <= start || end-start > 16<<20 {
		return fmt.Errorf("scrubbing the environment: bad env_start/env_end in /proc/self/stat")
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("scrubbing the environment: %w", err)
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return fmt.Errorf("scrubbing the environment: %w", err)
	}
	changed := false
	for off := 0; off < len(block); {
		n := bytes.IndexByte(block[off:], 0)
		if n < 0 {
			n = len(block) - off
		}
		kv := block[off : off+n]
		for _, name := range names {
			if bytes.HasPrefix(kv, []byte(name+"=")) {
				for j := len(name) + 1; j < len(kv); j++ {
					kv[j] = 'x'
				}
				changed = true
			}
		}
		off += n + 1
	}
	if !changed {
		return nil
	}
	if _, err := mem.WriteAt(block, start); err != nil {
		return fmt.Errorf("scrubbing the environment: %w", err)
	}
	return nil
}
