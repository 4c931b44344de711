package execpolicy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// TestClosedOutputBehindShell runs programs that close their standard
// output while the sh -c that started them waits for them, and so holds
// the output open: each is found by the timeout, a protocol error naming
// the device.
func TestClosedOutputBehindShell(t *testing.T) {
	closes := `python3 -c "import os, sys, time; sys.stdin.readline(); os.close(1); time.sleep(100)"`
	tests := []struct {
		name    string
		command string
	}{{
		name:    "a python program, then more script",
		command: closes + `; echo "the policy ended" >&2`,
	}, {
		name:    "in a compound command",
		command: `{ ` + closes + `; }; exit 0`,
	}, {
		name:    "the command's own output closed by its redirection, in the background",
		command: `sleep 100 >&- & read -r line; wait`,
	}, {
		name:    "a subshell that closes its output",
		command: `(exec >&-; read -r line; sleep 100); exit 0`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, tt.command, Options{Timeout: short})
			_, err := p.Factory()(kit.Device{ID: "dev-000017"}).Next()
			want := `exec "` + strings.ReplaceAll(tt.command, `"`, `\"`) + `": device "dev-000017": no reply in time: it wrote nothing for 300ms while a request waited for its reply`
			require.EqualError(t, err, want, "Next() error, word for word")
			assert.ErrorIs(t, err, ErrTimeout, "Next() error")
		})
	}
}

// TestNoClosedOutputMisread runs programs whose shell holds the reply pipe
// while they are silent for a second or more, in the ways that must not be
// read as a closed output: each answers every request, and Close finds
// nothing wrong.
func TestNoClosedOutputMisread(t *testing.T) {
	answer := `python3 -c '
import sys, time
for line in sys.stdin:
    time.sleep(1)
    print("[1]", flush=True)
'`
	tests := []struct {
		name    string
		command string
		files   map[string]string // written to the program's directory
	}{{
		name:    "a shell loop that is itself the program",
		command: `while read -r line; do sleep 1; echo '[1]'; done`,
	}, {
		name:    "a shell loop that computes by itself",
		command: `while read -r line; do i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done; echo '[1]'; done`,
	}, {
		name:    "a shell loop that computes in a command substitution",
		command: `while read -r line; do n=$(sleep 1; echo 1); echo "[$n]"; done`,
	}, {
		// coreutils close their standard output as they exit, and a
		// loaded machine can hold a process there for long: the command
		// here takes a second over it, running, and the shell answers.
		name: "a command that closes its output on its way out, slowly",
		command: `while read -r line; do python3 -c 'import os, time; os.close(1); end = time.time() + 1
while time.time() < end: pass'; echo '[1]'; done`,
	}, {
		name:    "a pause, then exec",
		command: `sleep 2; exec ` + answer,
	}, {
		name:    "a setup step whose output goes to standard error",
		command: `make -s >&2 && exec ./prog`,
		files: map[string]string{
			"Makefile": "prog:\n\t@echo compiling; sleep 2\n\tprintf '#!/bin/sh\\nwhile read -r l; do echo \"[1]\"; done\\n' > prog\n\tchmod +x prog\n",
		},
	}, {
		name:    "a setup step in a subshell whose output goes to standard error",
		command: `(echo compiling; sleep 2) >&2 && ` + answer,
	}, {
		name:    "a helper that closes its own copy, and a shell that answers",
		command: `(exec >&-; sleep 100) & while read -r line; do sleep 1; echo '[1]'; done`,
	}, {
		name: "a helper that closes its own copy, and a program that answers",
		command: `python3 -c '
import subprocess, sys, time
subprocess.Popen(["sh", "-c", "exec >&-; sleep 100"])
for line in sys.stdin:
    time.sleep(1)
    print("[1]", flush=True)
'`,
	}, {
		name: "a helper that closes its own copy, and a program exec'ed that answers",
		command: `exec python3 -c '
import subprocess, sys, time
subprocess.Popen(["sh", "-c", "exec >&-; sleep 100"])
for line in sys.stdin:
    time.sleep(1)
    print("[1]", flush=True)
'`,
	}, {
		// Each reply comes from a subshell that closed its standard
		// output and writes to a copy of it, fd 3: a closed output, but
		// the pipe is still held.
		name:    "a subshell that answers through another fd",
		command: `while read -r line; do (exec 3>&1 >&-; sleep 1; echo '[1]' >&3); done`,
	}, {
		name:    "a pipeline",
		command: answer + ` | cat`,
	}, {
		name:    "a background helper with its output closed, while a command answers",
		command: `sleep 100 >&- & ` + answer,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.command, "make") {
				if _, err := exec.LookPath("make"); err != nil {
					t.Skip("make not installed")
				}
			}
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			p := start(t, tt.command, Options{Dir: dir})
			f := p.Factory()
			for i := range 3 {
				d, err := f(kit.Device{ID: "dev-" + pad(i)}).Next()
				require.NoError(t, err, "dev-%s: Next()", pad(i))
				require.Equal(t, time.Second, d, "dev-%s: Next()", pad(i))
			}
			assert.NoError(t, p.Close(), "Close()")
		})
	}
}

// TestTokenOfAProcessMidExec checks how the kit reads a process's
// environment: the program's token is found, a foreign one is not the
// program's, and an empty one, which a process shows while the kernel lays
// out the stack of an exec, is not known yet, so that Close looks again
// rather than let a daemon caught mid-exec escape.
func TestTokenOfAProcessMidExec(t *testing.T) {
	token := mark(exec.Command("true"))
	run := func(cmd *exec.Cmd) int {
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd.Process.Pid
	}
	marked := exec.Command("sleep", "60")
	marked.Env = []string{tokenEnv + "=" + token}
	foreign := exec.Command("sleep", "60")
	foreign.Env = []string{tokenEnv + "=another", "PATH=/usr/bin:/bin"}
	empty := exec.Command("sleep", "60")
	empty.Env = []string{}
	tests := []struct {
		name       string
		pid        int
		has, known bool
	}{
		{"the program's token", run(marked), true, true},
		{"another program's token", run(foreign), false, true},
		{"no environment, as in the middle of an exec", run(empty), false, false},
		{"a process that is gone", 1 << 30, false, true},
	}
	for _, tt := range tests {
		has, known := hasToken(tt.pid, token)
		assert.Equal(t, tt.has, has, "%s: has", tt.name)
		assert.Equal(t, tt.known, known, "%s: known", tt.name)
	}
}

// TestAdoptedProcessesAreReaped checks that Close reaps the processes of a
// program that it kills, those that left the group included, rather than
// leave them zombies of the kit, which adopts them as a subreaper.
func TestAdoptedProcessesAreReaped(t *testing.T) {
	p := start(t, `sleep 300 & echo $! > pids; setsid sleep 300 & echo $! >> pids; setsid -f sh -c 'echo $$ > pid; sleep 300 & echo $! >> pid; wait' </dev/null >/dev/null 2>&1; until [ $(wc -l < pid) -eq 2 ]; do sleep 0.01; done 2>/dev/null; cat pid >> pids; while read -r line; do echo '[1]'; done`, Options{})
	_, err := p.Factory()(kit.Device{ID: "dev-000001"}).Next()
	require.NoError(t, err, "Next()")
	require.NoError(t, p.Close(), "Close()")
	b, err := os.ReadFile(filepath.Join(p.opt.Dir, "pids"))
	require.NoError(t, err)
	pids := strings.Fields(string(b))
	require.Len(t, pids, 4, "pids written: %q", pids)
	for _, s := range pids {
		_, err := os.Stat("/proc/" + s)
		assert.ErrorIs(t, err, os.ErrNotExist, "process %s after Close: want it reaped", s)
	}
}

// TestCloseLeavesOtherChildren checks that stopping a program never reaps
// a child of the process that the kit did not start: one that runs, and
// one that has exited and waits for its parent to reap it. Their owners
// still get their exit status.
func TestCloseLeavesOtherChildren(t *testing.T) {
	running := exec.Command("sleep", "60")
	require.NoError(t, running.Start())
	exited := exec.Command("sh", "-c", "exit 7")
	require.NoError(t, exited.Start())
	require.True(t, eventually(func() bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(exited.Process.Pid) + "/stat")
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		return len(f) > 0 && f[0] == "Z"
	}), "sh -c 'exit 7' did not exit")

	p := start(t, `setsid sleep 300 & while read -r line; do echo '[1]'; done`, Options{})
	_, err := p.Factory()(kit.Device{ID: "dev-000001"}).Next()
	require.NoError(t, err, "Next()")
	require.NoError(t, p.Close(), "Close()")

	var ee *exec.ExitError
	require.ErrorAs(t, exited.Wait(), &ee, "Wait() of a child that exited before Close")
	assert.Equal(t, 7, ee.ExitCode(), "its exit status")
	require.NoError(t, running.Process.Kill())
	require.ErrorAs(t, running.Wait(), &ee, "Wait() of a child that ran through Close")
	assert.Equal(t, "signal: killed", ee.String(), "its exit status")
}
