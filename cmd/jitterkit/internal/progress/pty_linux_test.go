package progress

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
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
// bar after it, and a cleared line at the end.
func TestTerminal(t *testing.T) {
	master, slave := openPTY(t)
	if !IsTerminal(slave) {
		t.Fatal("IsTerminal(pty) = false")
	}
	b := start(slave, "replay", 4, 300*time.Millisecond)
	b.Add(2)
	time.Sleep(200 * time.Millisecond)
	b.Finish()
	b = start(slave, "replay", 4, 300*time.Millisecond)
	b.Add(2)
	time.Sleep(600 * time.Millisecond)
	b.Finish()
	slave.Close()
	// A read of the master returns what the terminal holds so far, and an
	// error (EIO) once the slave is closed and everything was read.
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := master.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	got := sb.String()
	if !strings.Contains(got, "\rreplay [===============>              ]  50%") {
		t.Errorf("terminal got %q; want the bar at 50%%", got)
	}
	// The first bar finished before its delay and drew nothing.
	if !strings.HasPrefix(got, "\rreplay [") {
		t.Errorf("terminal got %q; want the second bar first", got)
	}
	if !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("terminal got %q; want the line cleared at the end", got)
	}
}
