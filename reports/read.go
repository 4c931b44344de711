package reports

import (
	"context"
	"io"
	"io/fs"
	"os"

	"github.com/jitterkit/jitterkit/internal/prose"
)

// A TooLargeError is ReadFile's refusal of a file larger than its limit,
// Max bytes.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string { return "larger than " + prose.FormatBytes(e.Max) }

// ReadFile opens the file at path and hands read its bytes, at most max of
// them, the input counterpart of writeFile. Opening a FIFO waits for a writer and reading
// one waits for its data: when ctx ends either wait, the error is an
// *fs.PathError whose Op is "open" or "read" and whose Err is ctx.Err().
// A read that goes past max bytes gives a *TooLargeError. Otherwise the
// error is the operating system's *fs.PathError, or read's.
func ReadFile(ctx context.Context, path string, max int64, read func(io.Reader) error) error {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	var f *os.File
	select {
	case o := <-done:
		if o.err != nil {
			return o.err
		}
		f = o.f
	case <-ctx.Done():
		// The open may still return: close what it opens.
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return &fs.PathError{Op: "open", Path: path, Err: ctx.Err()}
	}
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer func() {
		if stop() {
			f.Close()
		}
	}()
	lr := &io.LimitedReader{R: f, N: max + 1}
	err := read(lr)
	switch {
	case ctx.Err() != nil:
		return &fs.PathError{Op: "read", Path: path, Err: ctx.Err()}
	case lr.N <= 0:
		return &TooLargeError{max}
	}
	return err
}
