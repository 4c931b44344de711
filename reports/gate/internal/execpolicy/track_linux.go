//go:build linux

package execpolicy

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// On Linux a tracker reads /proc to find every process the program
// started, so that Close can stop them all, including those that left the
// program's process group with setsid. Each program is started with an
// environment variable of its own, tokenEnv=<random token>; its children
// inherit it wherever they move, so a process whose /proc/PID/environ holds
// it is the program's. Processes that descend from the program's leader
// through their parent links, and the members of its process group, are
// the program's too, whatever their environment. These two links are sound
// because the leader is not reaped before the program is stopped
// (awaitExit): until then no other process can take its pid. The tracker
// signals each process through a pidfd (os.FindProcess), after checking
// that the pid still names the process it read.
//
// Finding the processes takes a scan of /proc (their stat, and the environ
// of those younger than the leader) per round of signals; Close makes at
// most killRounds of them. A process that left the program's tree and
// dropped the token from its environment (env -i) cannot be found.
//
// Everything it reads may change under it: a process that ends while it
// reads is skipped, and the decisions are made so that a race can only
// make them more cautious.
type tracker struct {
	token string // the value of tokenEnv in the program's environment
	self  int    // the kit's own pid

	// Set by started.
	leader int    // the program's leader: the sh -c, or what it exec'ed
	since  uint64 // the leader's start time: no process of the program is older
}

// awaitExit waits for process pid, a child of the kit, to exit, and leaves
// it a zombie: until the caller reaps it, its pid cannot be reused, so
// that the pid and the process group it names stay the program's. It
// reports false if it cannot wait so, and the caller reaps at once.
func awaitExit(pid int) bool {
	const pPID = 1     // waitid's P_PID
	var info [128]byte // a siginfo_t, unread
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			return errno == 0
		}
	}
}

// tokenEnv names the environment variable that marks the program's
// processes.
const tokenEnv = "JITTERKIT_EXEC_TOKEN"

// newTracker prepares cmd, before it starts, so that its processes can be
// found: it adds the token to the program's environment.
func newTracker(cmd *exec.Cmd) *tracker {
	t := &tracker{token: rand.Text(), self: os.Getpid()}
	cmd.Env = append(cmd.Environ(), tokenEnv+"="+t.token)
	return t
}

// started records the program's leader once cmd has started.
func (t *tracker) started(cmd *exec.Cmd) {
	t.leader = cmd.Process.Pid
	p, ok := readProc(t.leader)
	if !ok {
		t.leader = 0 // no /proc to read: the tracker does nothing
		return
	}
	t.since = p.start
}

// A proc is one line of the process table, read from /proc/PID/stat.
type proc struct {
	pid, ppid, pgid int
	state           byte   // R, S, D, Z, X...
	flags           uint64 // the kernel's PF_* flags
	start           uint64 // start time in clock ticks since boot: with pid, the process's identity
}

func (p proc) alive() bool { return p.state != 'Z' && p.state != 'X' }

// readProc reads /proc/PID/stat.
func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	// The command name, in parentheses, may hold anything: the fields
	// start after its last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return proc{}, false
	}
	p := proc{pid: pid, state: f[0][0]}
	var e1, e2, e3, e4 error
	p.ppid, e1 = strconv.Atoi(f[1])
	p.pgid, e2 = strconv.Atoi(f[2])
	p.flags, e3 = strconv.ParseUint(f[6], 10, 64)
	p.start, e4 = strconv.ParseUint(f[19], 10, 64)
	if e1 != nil || e2 != nil || e3 != nil || e4 != nil {
		return proc{}, false
	}
	return p, true
}

// processes reads the whole process table.
func processes() []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// descendants returns the pids of root's descendants in procs, through
// their parent links.
func descendants(procs []proc, root int) map[int]bool {
	children := make(map[int][]int)
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	out := make(map[int]bool)
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if !out[c] && c != root {
				out[c] = true
				queue = append(queue, c)
			}
		}
	}
	return out
}

// hasToken reports whether process pid was started with the program's
// token in its environment, and whether that could be told: a process in
// the middle of an exec shows an empty environment until the kernel has
// laid out its new stack, so an empty one is not known yet. A process
// whose environment cannot be read (another user's) is not the program's.
func (t *tracker) hasToken(pid int) (has, known bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false, true
	}
	if len(env) == 0 {
		return false, false
	}
	return bytes.Contains(append([]byte{0}, append(env, 0)...), []byte("\x00"+tokenEnv+"="+t.token+"\x00")), true
}

// pfKthread is the kernel's flag for its own threads, which have no
// environment and are never the program's.
const pfKthread = 0x00200000

// signalAll sends sig to every live process of the program: the members of
// its process group, the descendants of its leader, and every process that
// carries its token. It returns how many processes are still to be dealt
// with: those it signalled, and those younger than the leader whose
// environment it could not read yet (a process of the program caught in
// the middle of an exec), which the next round reads again. The leader
// itself is left to the caller, which must not have reaped it yet: until
// then its pid names the program's group and the parent of its children.
func (t *tracker) signalAll(sig syscall.Signal) int {
	if t.leader == 0 {
		return 0
	}
	procs := processes()
	desc := descendants(procs, t.leader)
	n := 0
	for _, p := range procs {
		if !p.alive() || p.pid == t.leader || p.pid == t.self || p.flags&pfKthread != 0 {
			continue
		}
		if p.pgid != t.leader && !desc[p.pid] {
			if p.start < t.since {
				continue
			}
			if has, known := t.hasToken(p.pid); !known {
				n++
				continue
			} else if !has {
				continue
			}
		}
		// Pin the process with a pidfd, then check that the pid still
		// names the process read above and not a newcomer that reused it.
		h, err := os.FindProcess(p.pid)
		if err != nil {
			continue
		}
		if now, ok := readProc(p.pid); ok && now.start == p.start && now.alive() {
			if h.Signal(sig) == nil {
				n++
			}
		}
		h.Release()
	}
	return n
}
