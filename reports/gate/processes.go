package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports/gate/internal/execpolicy"
)

// libFaketimeEnv names the environment variable that tells the gate where
// libfaketime is (libfaketime.so.1, Debian's faketime package): the
// frozen-clock check runs an exec policy's processes under it, each with
// its clock frozen at its device's boot instant. Unset, the gate looks in
// the places the packages install it; set but empty, no clock is frozen
// and the check is skipped, saying so. ExecPolicy's documentation, the
// README and the command's help name it.
const libFaketimeEnv = "JITTERKIT_LIBFAKETIME"

// libFaketimePlaces are where the packages of Linux distributions install
// libfaketime, as globs.
var libFaketimePlaces = []string{
	"/usr/lib/*-linux-gnu/faketime/libfaketime.so.1", // Debian, Ubuntu
	"/usr/lib64/faketime/libfaketime.so.1",           // Fedora
	"/usr/lib/faketime/libfaketime.so.1",             // Arch, Alpine
	"/usr/local/lib/faketime/libfaketime.so.1",       // built from source
}

// freshAtOnce is how many fresh processes of an exec policy run at a time:
// twice the processors the kit may use, at most 8. Starting an
// interpreter is mostly work for a processor, with waits for the disk
// between; more at once would only make each slower.
func freshAtOnce() int { return min(8, 2*runtime.GOMAXPROCS(0)) }

// processes makes an exec policy's devices in fresh processes of its
// program, one per device, as a fleet runs it: see properties.Processes.
type processes struct {
	command string
	opt     execpolicy.Options
	// own makes a device from the policy's long-running program: the
	// devices not made in fresh processes, and those made again.
	own kit.Factory

	once     sync.Once
	faketime string // libfaketime's path, once found and tried
	why      string // why no clock can be frozen, or ""

	mu     sync.Mutex
	broken error // the first protocol error of a fresh process, or nil
}

// err returns the first protocol error of a fresh process, or nil.
func (ps *processes) err() error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.broken
}

// Fresh asks each of devs its first n delays from a process of its own (at
// most freshAtOnce at a time), each under a clock frozen at its device's
// boot instant when frozen. A process that breaks the protocol is the
// error, a *execpolicy.ProtocolError naming its device and line.
func (ps *processes) Fresh(ctx context.Context, devs []kit.Device, n int, frozen bool) (kit.Factory, error) {
	asks := make([]execpolicy.Fresh, len(devs))
	for i, d := range devs {
		asks[i].Device = d.ID
		if frozen {
			if why := ps.Unfrozen(); why != "" {
				return nil, fmt.Errorf("no frozen clock: %s", why)
			}
			asks[i].Env = frozenClockEnv(ps.faketime, d.Boot)
		}
	}
	replies, err := execpolicy.AskFresh(ctx, ps.command, ps.opt, asks, n, freshAtOnce())
	if err != nil {
		if errors.As(err, new(*execpolicy.ProtocolError)) {
			ps.mu.Lock()
			if ps.broken == nil {
				ps.broken = err
			}
			ps.mu.Unlock()
		}
		return nil, err
	}
	a := &answers{own: ps.own, byID: make(map[string][]float64, len(devs))}
	for i, d := range devs {
		a.byID[d.ID] = replies[i]
	}
	return a.factory, nil
}

// Unfrozen says why no clock can be frozen for the program's processes, or
// "" when libfaketime was found and froze the clock of a trial process.
func (ps *processes) Unfrozen() string {
	ps.once.Do(func() { ps.faketime, ps.why = findLibFaketime() })
	return ps.why
}

// frozenClockEnv returns the environment that freezes a process's clocks
// at boot with libfaketime: FAKETIME as an absolute time, which libfaketime
// holds still (its "@" form would start the clock there and let it run),
// read in the local time zone as libfaketime reads it. Every clock the
// process reads through the C library stands still, the monotonic one
// too; a statically linked program, which asks the kernel itself, is not
// reached.
func frozenClockEnv(lib string, boot time.Time) []string {
	preload := lib
	if prev := os.Getenv("LD_PRELOAD"); prev != "" {
		preload += ":" + prev
	}
	return []string{
		"LD_PRELOAD=" + preload,
		"FAKETIME=" + boot.In(time.Local).Format("2006-01-02 15:04:05.000000000"),
		"FAKETIME_DONT_RESET=1",
	}
}

// findLibFaketime finds libfaketime and tries it on date(1): it returns
// its path, or why no clock can be frozen.
func findLibFaketime() (lib, why string) {
	if runtime.GOOS != "linux" {
		return "", "libfaketime is preloaded on Linux only"
	}
	path, set := os.LookupEnv(libFaketimeEnv)
	switch {
	case set && path == "":
		return "", libFaketimeEnv + " is set and empty"
	case set:
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Sprintf("%s names %s: %v", libFaketimeEnv, path, err)
		}
	default:
		for _, g := range libFaketimePlaces {
			if m, _ := filepath.Glob(g); len(m) > 0 {
				path = m[0]
				break
			}
		}
		if path == "" {
			return "", "libfaketime.so.1 was not found; install it (Debian and Ubuntu: apt-get install faketime) or name it in " + libFaketimeEnv
		}
	}
	// One trial: date under the frozen clock must print the frozen
	// second. The limit only stops a trial that hangs; it is no judge of
	// speed, and a trial that fails leaves the check skipped, saying why.
	at := time.Date(2000, 1, 1, 0, 0, 7, 0, time.UTC)
	ctx, cancel := context.WithTimeout(context.Background(), execpolicy.DefaultTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "date", "+%s")
	cmd.Env = append(os.Environ(), frozenClockEnv(path, at)...)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Sprintf("date(1) under %s failed: %v", path, err)
	}
	if got := strings.TrimSpace(string(out)); got != strconv.FormatInt(at.Unix(), 10) {
		return "", fmt.Sprintf("date(1) under %s printed %s, not the frozen second %d: the library does not freeze the clock here", path, got, at.Unix())
	}
	return path, ""
}

// answers makes devices from the replies of their fresh processes, each
// once; a device made again, or never asked, comes from own.
type answers struct {
	own  kit.Factory
	mu   sync.Mutex
	byID map[string][]float64
}

func (a *answers) factory(d kit.Device) kit.Policy {
	a.mu.Lock()
	delays, ok := a.byID[d.ID]
	delete(a.byID, d.ID)
	a.mu.Unlock()
	if !ok {
		return a.own(d)
	}
	return &answered{delays: delays}
}

// answered is a device's policy read from the reply of its process: its
// delays, then kit.ErrStop. A reply holds as many delays as the checks
// read of one device, or fewer when the policy stops.
type answered struct {
	delays []float64
	next   int
}

func (p *answered) Next() (time.Duration, error) {
	if p.next == len(p.delays) {
		return 0, kit.ErrStop
	}
	s := p.delays[p.next]
	p.next++
	return kit.Seconds(s)
}
