// Package kittest holds the helpers the project's own tests share: golden
// files rewritten with -update, a testing.TB that records what a check
// reports, a policy made of a function, float comparisons that treat NaN
// as equal to itself, and the files a write left in a directory. It lives
// under testdata so that it is no part of the module's public packages, and
// imports nothing of the module's, so that every package's own tests can
// use it.
package kittest

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// update is the -update flag of every package whose tests use Golden.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Golden compares got with the golden file at path, relative to the test's
// package, and fails t with a (-want +got) diff when they differ. Under
// -update it writes got to the file instead.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	assert.Equal(t, string(want), string(got), "%s differs (-want +got); go test -update rewrites it", path)
}

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// ReadFiles returns the content of every file in dir by its name, for
// tests that check what a write left in a directory. It fails t if dir or
// one of its entries cannot be read.
func ReadFiles(t testing.TB, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

// A Recorder is a testing.TB that records what is reported to it, for
// tests of the kit's own failure messages word for word. Errors and Fatals
// are recorded as errors, Logs as logs, Skips as skips; neither Fatal nor
// Skip stops the goroutine.
type Recorder struct {
	testing.TB
	mu                  sync.Mutex
	Errors, Logs, Skips []string
}

func (r *Recorder) Helper() {}

func (r *Recorder) add(list *[]string, s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*list = append(*list, s)
}

func (r *Recorder) Error(args ...any)                 { r.add(&r.Errors, fmt.Sprint(args...)) }
func (r *Recorder) Errorf(format string, args ...any) { r.add(&r.Errors, fmt.Sprintf(format, args...)) }
func (r *Recorder) Fatal(args ...any)                 { r.add(&r.Errors, fmt.Sprint(args...)) }
func (r *Recorder) Fatalf(format string, args ...any) { r.add(&r.Errors, fmt.Sprintf(format, args...)) }
func (r *Recorder) Log(args ...any)                   { r.add(&r.Logs, fmt.Sprint(args...)) }
func (r *Recorder) Logf(format string, args ...any)   { r.add(&r.Logs, fmt.Sprintf(format, args...)) }
func (r *Recorder) Skip(args ...any)                  { r.add(&r.Skips, fmt.Sprint(args...)) }
func (r *Recorder) Skipf(format string, args ...any)  { r.add(&r.Skips, fmt.Sprintf(format, args...)) }

// A PolicyFunc is a retry policy made of a function: each call to Next
// calls it. It has the method set of kit.Policy without importing kit, so
// that kit's own tests can use it.
type PolicyFunc func() (time.Duration, error)

// Next calls f.
func (f PolicyFunc) Next() (time.Duration, error) { return f() }

// SameFloats reports whether a and b hold the same values in order, NaN
// equal to NaN.
func SameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool {
		return x == y || math.IsNaN(x) && math.IsNaN(y)
	})
}
