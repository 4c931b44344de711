package gate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
)

// traceBytesPerMemory bounds a trace's file by the memory limit: a trace
// is held in memory whole, and checking one with a short line per device
// peaks at about 30 bytes of memory for each byte of it (1.16 GB for a
// trace of 40 MB and 1.5 million devices), so a trace may take up to a
// sixty-fourth of the memory limit.
const traceBytesPerMemory = 64

// OpenTrace reads the trace at path (see [kit.ReadTrace]) and returns its
// policy, named by path. The file may hold up to a sixty-fourth of
// memoryLimit bytes (0 is [properties.DefaultMemoryLimit]). The errors of
// reading the file are [reports.ReadFile]'s: an *fs.PathError, or a
// *[reports.TooLargeError] for a larger file. A trace that is not one is an
// *[InputError] that names the file, and the line where it has one:
// "t.csv:3: delay_s: ...".
func OpenTrace(ctx context.Context, path string, memoryLimit int64) (Policy, error) {
	var t *kit.Trace
	err := reports.ReadFile(ctx, path, cmp.Or(memoryLimit, properties.DefaultMemoryLimit)/traceBytesPerMemory, func(r io.Reader) (err error) {
		t, err = kit.ReadTrace(r)
		return err
	})
	var big *reports.TooLargeError
	var pe *fs.PathError
	var te *kit.TraceError
	switch {
	case errors.As(err, &big), errors.As(err, &pe):
		return Policy{}, err
	case errors.As(err, &te) && te.Field != "":
		return Policy{}, &InputError{fmt.Errorf("%s:%d: %s: %w", path, te.Line, te.Field, te.Err)}
	case errors.As(err, &te):
		return Policy{}, &InputError{fmt.Errorf("%s:%d: %w", path, te.Line, te.Err)}
	case err != nil:
		return Policy{}, &InputError{fmt.Errorf("%s: %w", path, err)}
	}
	return tracePolicy(path, t), nil
}
