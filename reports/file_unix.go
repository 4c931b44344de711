//go:build unix

package reports

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// headFlags open a file that Lstat found regular, to read its first bytes,
// without blocking should it have become a pipe, or following a link.
const headFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// openInPlace opens the device, pipe or socket at path for writing, as it
// is: without creating or truncating it, following a link put in its place
// since Lstat, or making a terminal the controlling one. A pipe without a
// reader fails to open (ENXIO) and is tried again, ever less often, until
// a reader opens it or ctx is done. The file is then checked to be no
// regular file or directory, and made blocking again unless the runtime
// poller serves it, so that a write waits as it would have.
func openInPlace(ctx context.Context, path string, mode fs.FileMode) (*os.File, error) {
	const flags = os.O_WRONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY | syscall.O_NOFOLLOW
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		if err := ctx.Err(); err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		f, err := os.OpenFile(path, flags, 0)
		if err == nil {
			return blocking(f)
		}
		if mode&fs.ModeNamedPipe == 0 || !errors.Is(err, syscall.ENXIO) {
			return nil, err // a *fs.PathError that names path
		}
		select {
		case <-ctx.Done():
			return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("waiting for a reader of the pipe: %w", ctx.Err())}
		case <-time.After(wait):
		}
	}
}

// blocking checks that f, just opened in place, is no regular file or
// directory, and clears O_NONBLOCK unless the runtime poller serves f (a
// file it serves has deadlines).
func blocking(f *os.File) (*os.File, error) {
	fi, err := f.Stat()
	if err == nil && (fi.Mode().IsRegular() || fi.IsDir()) {
		err = &fs.PathError{Op: "open", Path: f.Name(), Err: errors.New("became a regular file or a directory while it was opened")}
	}
	if err == nil && errors.Is(f.SetWriteDeadline(time.Time{}), os.ErrNoDeadline) {
		var rc syscall.RawConn
		if rc, err = f.SyscallConn(); err == nil {
			if cerr := rc.Control(func(fd uintptr) { err = syscall.SetNonblock(int(fd), false) }); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// canCreateIn reports why no file can be created in the directory dir, or
// nil: it asks the kernel (access(2)) whether the process may write and
// search dir, which also fails on a read-only file system.
func canCreateIn(dir string) error {
	if err := syscall.Access(dir, 0x2|0x1); err != nil { // W_OK|X_OK
		return fmt.Errorf("cannot create a file in %s: %w", dir, err)
	}
	return nil
}

// descriptor returns the file descriptor a path such as /dev/stdout,
// /dev/fd/3 or /proc/self/fd/1 names, a file this process holds open
// already, and whether path is one.
func descriptor(path string) (int, bool) {
	switch path {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(path, dir); ok {
			fd, err := strconv.Atoi(n)
			return fd, err == nil && fd >= 0 && strconv.Itoa(fd) == n
		}
	}
	return 0, false
}

// writeDescriptor writes data to the file descriptor fd names, through a
// duplicate of it: the write goes where the stream's next write would,
// after what the process wrote there, whether it is a pipe, a terminal or
// a file the shell redirected it to.
func writeDescriptor(ctx context.Context, path string, fd int, data []byte) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	dup, err := syscall.Dup(fd)
	if err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	syscall.CloseOnExec(dup)
	f := os.NewFile(uintptr(dup), path)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil && cerr != nil {
		return &fs.PathError{Op: "close", Path: path, Err: cerr}
	}
	return err
}

// canReplace reports why the file at path, in the directory dir, cannot
// be renamed over or away, or nil: in a sticky directory, such as /tmp,
// only the file's owner, the directory's owner or root may.
func canReplace(dir, path string) error {
	di, derr := os.Stat(dir)
	fi, ferr := os.Lstat(path)
	if derr != nil || ferr != nil || di.Mode()&os.ModeSticky == 0 {
		return nil
	}
	ds, dok := di.Sys().(*syscall.Stat_t)
	fs, fok := fi.Sys().(*syscall.Stat_t)
	if !dok || !fok || !stickyRefuses(int(ds.Uid), int(fs.Uid), os.Geteuid()) {
		return nil
	}
	return fmt.Errorf("%s belongs to another user in a sticky directory, where only its owner may replace it", path)
}

// stickyRefuses reports whether a sticky directory owned by dirUID keeps
// the process of effective user euid from renaming or removing a file of
// fileUID in it.
func stickyRefuses(dirUID, fileUID, euid int) bool {
	return euid != 0 && dirUID != euid && fileUID != euid
}
