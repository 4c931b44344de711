package reports

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// writeFile writes data to path. What it does depends on what path names:
//
//   - nothing yet, or a regular file: data goes to a temporary file beside
//     path, is synced, and the temporary file is renamed over path, so that
//     a reader sees the old file or the new one, whole, never a part. A
//     file replaced keeps its permission bits; a new one gets 0644. The
//     directory must exist.
//   - a symbolic link: the link is followed, through every link on the
//     way, and the file at its end is replaced as above (or created, when
//     the link dangles). The link itself stays.
//   - a device, a named pipe (FIFO) or a socket: data is written through it
//     in place. It is opened for writing as it is, never created, truncated,
//     renamed or changed in mode: /dev/null discards the data, a pipe's
//     reader reads it, and /dev/full returns its write error. While a pipe
//     has no reader, writeFile waits for one until ctx is done. A socket
//     cannot be opened as a file and gives an error.
//   - a directory: an error naming it, and nothing is written.
//   - a stream the process holds open, named /dev/stdout, /dev/stderr,
//     /dev/fd/N or /proc/self/fd/N (on unix): data is written to it
//     through a duplicate of its descriptor, after what the process wrote
//     there, whatever it is: a pipe, a terminal, or a file the shell
//     redirected it to, which is not replaced.
//
// Every error names the file written (the end of the links): an
// *fs.PathError, or the *os.LinkError of a failed rename, so that a caller
// can tell a path that does not work from a failure of the kit. When ctx
// is done first, writeFile stops waiting or writing, the error wraps
// ctx.Err(), and a file that was to be replaced is left as it was; a
// pipe's reader may have read part of data.
//
// writeFile does not check whether path is also one of the caller's inputs:
// that is the caller's to refuse.
func writeFile(ctx context.Context, path string, data []byte) error {
	if fd, ok := descriptor(path); ok {
		return writeDescriptor(ctx, path, fd, data)
	}
	target, fi, err := followLinks(path)
	switch {
	case err != nil:
		return err
	case fi == nil:
		return replaceFile(ctx, target, data, 0o644)
	case fi.Mode().IsRegular():
		return replaceFile(ctx, target, data, fi.Mode().Perm())
	case fi.IsDir():
		return &fs.PathError{Op: "write", Path: target, Err: fmt.Errorf("%w; name a file", syscall.EISDIR)}
	}
	return writeInPlace(ctx, target, fi.Mode(), data)
}

// maxLinks is how many symbolic links followLinks follows, as Linux's
// path resolution does, before it gives up on a loop.
const maxLinks = 40

// followLinks follows path through its symbolic links, and returns the path
// of the file at their end with what Lstat says of it, or nil when there is
// no such file. A relative link is read from the directory that holds it;
// the paths are joined, never cleaned, so that a ".." after a link to a
// directory goes where the kernel would take it.
func followLinks(path string) (string, fs.FileInfo, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, nil
		}
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p, fi, err
		}
		link, err := os.Readlink(p)
		if err != nil {
			return p, nil, err
		}
		if i := lastSeparator(p); i >= 0 && !filepath.IsAbs(link) {
			p = p[:i+1] + link
		} else {
			p = link
		}
	}
	return path, nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
}

// splitPath splits p after its last separator, without cleaning it: the
// directory ("." when p has none, the root when p is directly in it) and
// the name.
func splitPath(p string) (dir, name string) {
	switch i := lastSeparator(p); {
	case i < 0:
		return ".", p
	case i == 0:
		return p[:1], p[1:]
	default:
		return p[:i], p[i+1:]
	}
}

// lastSeparator returns the index of p's last path separator, or -1.
func lastSeparator(p string) int {
	i := len(p) - 1
	for i >= 0 && !os.IsPathSeparator(p[i]) {
		i--
	}
	return i
}

// replaceFile writes data to a temporary file in path's directory, with the
// permission bits perm, syncs it, and renames it over path.
func replaceFile(ctx context.Context, path string, data []byte, perm fs.FileMode) error {
	dir, name := splitPath(path)
	temp, err := writeTemp(dir, name, data, perm, copyData)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		os.Remove(temp)
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if err := os.Rename(temp, path); err != nil {
		os.Remove(temp)
		return err // a *os.LinkError, which names both
	}
	return syncDir(dir)
}

// tempName is the pattern of a temporary file or directory for name, as
// os.CreateTemp takes it: hidden, and short enough for any file system.
func tempName(name string) string {
	return "." + name[:min(len(name), 100)] + ".*.tmp"
}

// writeTemp writes data into a new temporary file for name in dir with
// write, as fill does, and returns its path. On an error it leaves no file
// behind; the error names dir/name, not the temporary file.
func writeTemp(dir, name string, data []byte, perm fs.FileMode, write func(io.Writer, []byte) error) (string, error) {
	path := filepath.Join(dir, name)
	t, err := os.CreateTemp(dir, tempName(name))
	if err != nil {
		return "", &fs.PathError{Op: "create", Path: path, Err: pathErr(err)}
	}
	if err := fill(t, data, perm, write); err != nil {
		os.Remove(t.Name())
		return "", &fs.PathError{Op: "write", Path: path, Err: pathErr(err)}
	}
	return t.Name(), nil
}

// fill writes data into the new file f with write, gives it the permission
// bits perm, syncs it and closes it.
func fill(f *os.File, data []byte, perm fs.FileMode, write func(io.Writer, []byte) error) error {
	err := write(f, data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// pathErr returns the error of an *fs.PathError err, without its path, so
// that an error about a temporary file can name the file it stands for.
func pathErr(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// copyData is the plain copy of a file's data into its new file.
func copyData(w io.Writer, data []byte) error {
	_, err := w.Write(data)
	return err
}

// writeInPlace writes data through the device, pipe or socket at path,
// whose mode Lstat gave: it opens it for writing as it is (see openInPlace)
// and writes, until ctx is done.
func writeInPlace(ctx context.Context, path string, mode fs.FileMode, data []byte) error {
	f, err := openInPlace(ctx, path, mode)
	if err != nil {
		return err
	}
	// A pipe whose reader does not read blocks the write once its buffer
	// is full: a deadline in the past stops it. A device the poller does
	// not serve has no deadlines, and its writes end by themselves.
	stop := context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Unix(1, 0)) })
	_, err = f.Write(data)
	stop()
	if cerr := f.Close(); err == nil && cerr != nil {
		return &fs.PathError{Op: "close", Path: path, Err: cerr}
	}
	if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil {
		return &fs.PathError{Op: "write", Path: path, Err: ctx.Err()}
	}
	return err // nil, or a *fs.PathError that names path
}

// syncDir makes the renames in dir durable, where the system can.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, os.ErrInvalid) || errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}
