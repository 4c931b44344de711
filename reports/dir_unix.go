//go:build unix

package reports

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// headFlags open a file that Lstat found regular, to read its first bytes,
// without blocking should it have become a pipe, or following a link.
const headFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// lockDir takes an exclusive flock(2) on the directory dir itself, waiting,
// ever less often, while another process holds it, until ctx is done. The
// lock leaves no file behind. It returns the function that releases it. On
// a file system that cannot lock, it goes on without the lock.
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	rc, err := d.SyscallConn()
	if err != nil {
		d.Close()
		return nil, err
	}
	wait := time.Millisecond
	for {
		var ferr error
		if err := rc.Control(func(fd uintptr) { ferr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB) }); err != nil {
			ferr = err
		}
		if ferr == nil {
			// Closing the directory releases the lock.
			return func() { d.Close() }, nil
		}
		if errors.Is(ferr, syscall.ENOLCK) || errors.Is(ferr, syscall.EOPNOTSUPP) || errors.Is(ferr, syscall.ENOTSUP) || errors.Is(ferr, syscall.ENOSYS) {
			d.Close()
			return func() {}, nil
		}
		if !errors.Is(ferr, syscall.EWOULDBLOCK) && !errors.Is(ferr, syscall.EINTR) {
			d.Close()
			return nil, &fs.PathError{Op: "lock", Path: dir, Err: ferr}
		}
		select {
		case <-ctx.Done():
			d.Close()
			return nil, &fs.PathError{Op: "lock", Path: dir, Err: fmt.Errorf("waiting for another writer of the report: %w", ctx.Err())}
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}
