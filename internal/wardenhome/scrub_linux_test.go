package wardenhome

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// A credential taken from the environment leaves no trace in the
// process's /proc/PID/environ, which any process of the same user reads
// (SPEC S4); the other variables are left as they were.
func TestS4_ScrubEnv(t *testing.T) {
	if os.Getenv("WARDEN_SCRUB_CHILD") == "1" {
		if err := ScrubEnv(EnvToken); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(2)
		}
		if os.Getenv(EnvToken) != "" {
			os.Exit(3)
		}
		os.Stdout.WriteString("scrubbed\n")
		os.Stdin.Read(make([]byte, 1)) // wait while the parent reads /proc
		os.Exit(0)
	}
	const secret = "op-secret-0123456789abcdefghijklmnop"
	cmd := exec.Command(os.Args[0], "-test.run=^TestS4_ScrubEnv$")
	cmd.Env = append(os.Environ(), "WARDEN_SCRUB_CHILD=1", EnvToken+"="+secret, "KEEP_ME=visible")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "scrubbed") {
		t.Fatalf("the child said %q", buf[:n])
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), secret) {
		t.Errorf("/proc/PID/environ still shows the credential")
	}
	if !strings.Contains(string(env), "KEEP_ME=visible") {
		t.Errorf("/proc/PID/environ lost another variable:\n%q", env)
	}
}
