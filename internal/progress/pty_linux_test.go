package progress

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openPTY opens a pseudo-terminal and returns its master and its slave.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open slave: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

// TestTerminal draws a bar on a pseudo-terminal: nothing before Delay, the
// bar after it, and a cleared line at the end. Nothing in it depends on how
// fast the machine is: the first bar's delay is an hour, and the second's
// is none, read until it shows.
func TestTerminal(t *testing.T) {
	master, slave := openPTY(t)
	require.True(t, IsTerminal(slave), "IsTerminal(pty)")
	b := newSchedule(realClock{}, Every).start(slave, "replay", 4, time.Hour)
	b.Add(2)
	b.Finish()
	b = newSchedule(realClock{}, Every).start(slave, "replay", 4, 0)
	b.Add(2)
	// A read of the master returns what the terminal holds so far, and an
	// error (EIO) once the slave is closed and everything was read.
	var sb strings.Builder
	buf := make([]byte, 4096)
	const bar = "\rreplay [===============>              ]  50%"
	for !strings.Contains(sb.String(), bar) {
		n, err := master.Read(buf)
		sb.Write(buf[:n])
		require.NoError(t, err, "reading the terminal; got %q", sb.String())
	}
	b.Finish()
	slave.Close()
	for {
		n, err := master.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	got := sb.String()
	// The first bar finished before its delay and drew nothing.
	assert.True(t, strings.HasPrefix(got, "\rreplay ["), "terminal got %q; want the second bar first", got)
	assert.True(t, strings.HasSuffix(got, "\r\033[K"), "terminal got %q; want the line cleared at the end", got)
}
