package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// libFaketime returns where libfaketime is installed, or "".
func libFaketime() string {
	for _, g := range []string{"/usr/lib/*-linux-gnu/faketime/libfaketime.so.1", "/usr/lib64/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1", "/usr/local/lib/faketime/libfaketime.so.1"} {
		if m, _ := filepath.Glob(g); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// TestExecFleet checks programs run as a fleet of processes: seeded once
// per process from the clock's second or its nanoseconds, they fail
// frozen-clock, which runs their processes under libfaketime; seeded per
// device, or per process by the operating system, they pass spread,
// clusters and frozen-clock.
func TestExecFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts python3 some 65 times per program")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	lib := libFaketime()
	if lib == "" {
		t.Skip("libfaketime not installed (Debian: apt-get install faketime)")
	}
	tests := []struct {
		program string
		code    int
		frozen  string
	}{
		{"clock_second.py", 1, "FAIL    frozen-clock     100% of the devices"},
		{"clock_ns.py", 1, "FAIL    frozen-clock     100% of the devices"},
		{"os_seeded.py", 0, "PASS    frozen-clock"},
		{"full_jitter.py", 0, "PASS    frozen-clock"},
	}
	for _, tt := range tests {
		t.Run(tt.program, func(t *testing.T) {
			t.Setenv("JITTERKIT_LIBFAKETIME", lib)
			r := jitterkit(t, context.Background(), "check", "--exec", "python3 testdata/"+tt.program, "--cap", "10s")
			require.Equal(t, tt.code, r.code, "exit code; stderr %q\n%s", r.stderr, r.stdout)
			assert.Contains(t, r.stdout, tt.frozen)
			assert.Contains(t, r.stdout, "(32 of the 1000 devices each in a fresh process of its own, the others from one process)")
			if tt.code == 0 {
				for _, name := range []string{"spread", "clusters"} {
					assert.Regexp(t, `PASS +`+name+` `, r.stdout, name)
				}
			}
		})
	}
}

// TestExecFleetWithoutFaketime checks that frozen-clock says why it did
// not run when no frozen clock reaches the program, and is never a pass.
func TestExecFleetWithoutFaketime(t *testing.T) {
	t.Setenv("JITTERKIT_LIBFAKETIME", "")
	r := jitterkit(t, context.Background(), "check", "--exec", `while read -r line; do echo '[0.1,0.2,0.3]'; done`, "--cap", "10s")
	assert.Contains(t, r.stdout, "frozen-clock     –                    –          not run: no frozen clock reaches the program's processes: JITTERKIT_LIBFAKETIME is set and empty")
	assert.NotRegexp(t, `PASS +frozen-clock`, r.stdout)
}

// TestExecFleetProtocolError checks that a program that breaks the
// protocol in one of its fresh processes is a protocol error naming the
// device and the line (exit 2).
func TestExecFleetProtocolError(t *testing.T) {
	program := `while read -r line; do case "$line" in *09:55*) echo oops;; *) echo '[0.1,0.2]';; esac; done`
	r := jitterkit(t, context.Background(), "check", "--exec", program, "--cap", "10s")
	require.Equal(t, exitUsage, r.code, "exit code; stdout %s", r.stdout)
	assert.True(t, strings.Contains(r.stderr, `device "02:1a:7f:01:09:55": the reply is not a JSON array of numbers: "oops"`), "stderr %q", r.stderr)
}
