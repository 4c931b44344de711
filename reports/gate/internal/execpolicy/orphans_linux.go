//go:build linux

package execpolicy

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// On Linux the kit is a child subreaper, so that it can stop the processes
// that leave a program's process group.
//
// A process that leaves the group (setsid, a daemon) is out of reach of
// the signals sent to the group. But when its parent dies, the kernel
// hands it to the nearest subreaper among its ancestors rather than to
// init, and the kit is one: once a program's group is dead, every process
// the program left running is a child of the kit, or a descendant of one.
// Each program is started with an environment variable of its own,
// tokenEnv=<random token>, which its processes inherit wherever they move.
// reapAdopted kills and reaps the kit's children that carry the token or
// are in the program's group, in rounds: a process killed hands its own
// children to the kit for the next round. A process that leaves the group
// and drops the token from its environment (setsid env -i ...) is out of
// reach.
//
// Being a subreaper is an attribute of the whole process, and the kit is a
// library that runs inside other programs, go test binaries among them.
// It is safe there because:
//
//   - It is not inherited: a process forked by the kit, or by other code
//     of the process, starts without it.
//   - The kit reaps only the processes it knows for a program's: its
//     children in the program's group, whose id stays the program's
//     because the leader is not reaped meanwhile (awaitExit), and its live
//     children that carry the program's token. It waits for each by its
//     pid, through os.Process, never for any child (wait4(-1)), so it never
//     takes the status of a process that other code started and waits
//     for: such a process is in neither set, short of joining a program's
//     group or copying its token on purpose.
//   - What other code sees change is where orphans go. An orphan of another
//     part of the process becomes its child rather than init's, sees its
//     pid rather than 1 as its parent, and, when it ends, stays a zombie,
//     a pid and no memory, until the process exits; so does a process of a
//     program that left its group and ended by itself before Close, when
//     its environment, and with it the token, is gone. go test binaries and
//     the jitterkit command exit when their run is over.
//
// The kit becomes a subreaper when it starts its first program, and stays
// one. Should the kernel refuse (a seccomp filter), the orphans go to init
// as before, and those that left their group are out of reach.

// tokenEnv names the environment variable that marks a program's processes.
const tokenEnv = "JITTERKIT_EXEC_TOKEN"

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// killRounds bounds the rounds of reapAdopted.
const killRounds = 20

// becomeSubreaper makes the kit a child subreaper, once.
var becomeSubreaper = sync.OnceFunc(func() {
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
})

// mark prepares cmd, before it starts, so that its processes can be found:
// it makes the kit a subreaper and adds a token of the program's own to
// its environment, which it returns.
func mark(cmd *exec.Cmd) string {
	becomeSubreaper()
	token := rand.Text()
	cmd.Env = append(cmd.Environ(), tokenEnv+"="+token)
	return token
}

// awaitExit waits for process pid, a child of the kit, to exit, and leaves
// it a zombie: until the caller reaps it, its pid cannot be reused, so
// that the process group it names stays the program's. It reports false if
// it cannot wait so, and the caller reaps at once.
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

// reapAdopted kills and reaps the kit's children that belong to the program
// whose leader is leader and whose token is token: the members of its
// process group, dead or alive, and the live processes that carry its
// token. The leader itself is left to the caller, which must not have
// reaped it yet. It goes in rounds over the kit's children, each waiting
// for the processes it kills, so that their children are the kit's by the
// next round; it stops at a round that finds none of the program's and
// none whose environment cannot be told yet (see hasToken), and after
// killRounds.
func reapAdopted(leader int, token string) {
	pause := time.Millisecond
	for range killRounds {
		found, unsure := false, false
		for _, c := range children() {
			if c.pid == leader {
				continue
			}
			if c.pgid != leader {
				if c.dead {
					continue // its token, if it had one, is gone
				}
				has, known := hasToken(c.pid, token)
				unsure = unsure || !known
				if !has {
					continue
				}
			}
			found = true
			// A child of the kit keeps its pid until the kit reaps it.
			if h, err := os.FindProcess(c.pid); err == nil {
				h.Kill()
				h.Wait()
			}
		}
		if !found && !unsure {
			return
		}
		if !found {
			time.Sleep(pause)
			pause = min(2*pause, 100*time.Millisecond)
		}
	}
}

// A child is a child process of the kit, as /proc/PID/stat shows it.
type child struct {
	pid, pgid int
	dead      bool // a zombie, waiting to be reaped
}

// children lists the kit's child processes from the stat of every process
// in /proc, as ps does. /proc/self/task/*/children would be shorter to
// read, but the kernel documents that it can omit live children when
// others are reaped while it is read, as they are whenever programs end
// side by side.
func children() []child {
	self := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	var out []child
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		// The command name, in parentheses, may hold anything: the
		// fields start after its last ')'.
		i := bytes.LastIndexByte(b, ')')
		if err != nil || i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || f[1] != strconv.Itoa(self) {
			continue
		}
		pgid, _ := strconv.Atoi(f[2])
		out = append(out, child{pid: pid, pgid: pgid, dead: f[0] == "Z" || f[0] == "X"})
	}
	return out
}

// hasToken reports whether process pid was started with token in its
// environment, and whether that could be told: a process in the middle of
// an exec shows an empty environment until the kernel has laid out its new
// stack, so an empty one is not known yet. A process whose environment
// cannot be read (another user's, or one that is gone) is not the
// program's.
func hasToken(pid int, token string) (has, known bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false, true
	}
	if len(env) == 0 {
		return false, false
	}
	return bytes.Contains(append([]byte{0}, append(env, 0)...), []byte("\x00"+tokenEnv+"="+token+"\x00")), true
}
