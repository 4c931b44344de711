package properties

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// rapidMu serialises the runs of rapid that change its settings.
var rapidMu sync.Mutex

// resolveSeed returns the seed of a run: seed itself, else the -rapid.seed
// flag when one is set, else defaultSeed.
func resolveSeed(seed uint64) uint64 {
	if seed != 0 {
		return seed
	}
	if f := flag.Lookup("rapid.seed"); f != nil {
		if v, err := strconv.ParseUint(f.Value.String(), 10, 64); err == nil && v != 0 {
			return v
		}
	}
	return defaultSeed
}

// withRapid runs fn with rapid's seed set to seed and its fail files turned
// off, and restores rapid's settings afterwards. fn is given the number of
// cases rapid draws: its -rapid.checks (100 unless set), in short mode as
// in any other. rapid draws a fifth of -rapid.checks under go test -short,
// so withRapid then asks it for five times as many: the checks judge on
// the evidence they are documented to require whatever the mode, and
// -short leaves their verdicts as they are. rapid reads its settings from
// the standard flag set, and needs the testing flags registered and parsed
// (it asks testing.Short); outside go test withRapid registers them with
// testing.Init and, unless the program has parsed the standard flag set
// already, parses it with no arguments.
func withRapid(seed uint64, fn func(checks int)) {
	rapidMu.Lock()
	defer rapidMu.Unlock()
	if !testing.Testing() {
		testing.Init() // has no effect once called
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
	}
	checks := rapidChecks()
	set := map[string]string{"rapid.seed": strconv.FormatUint(seed, 10), "rapid.nofailfile": "true"}
	if testing.Short() && checks > 0 {
		checks = min(checks, math.MaxInt/shortDivisor)
		set["rapid.checks"] = strconv.Itoa(checks * shortDivisor)
	}
	old := map[string]string{}
	for name, v := range set {
		f := flag.Lookup(name)
		if f == nil {
			panic("properties: rapid's flag -" + name + " is not registered")
		}
		old[name] = f.Value.String()
		if err := f.Value.Set(v); err != nil {
			panic("properties: setting -" + name + ": " + err.Error())
		}
	}
	defer func() {
		for name, v := range old {
			_ = flag.Lookup(name).Value.Set(v)
		}
	}()
	fn(checks)
}

// shortDivisor is what rapid divides -rapid.checks by under go test
// -short.
const shortDivisor = 5

// rapidChecks returns the number of cases rapid is asked to draw: its
// -rapid.checks flag, which RAPID_CHECKS sets when the flag is not given,
// and which is 100 unless either is.
func rapidChecks() int {
	checks := 100
	if f := flag.Lookup("rapid.checks"); f != nil {
		if n, err := strconv.Atoi(f.Value.String()); err == nil {
			checks = n
		}
	}
	return checks
}

// rapidTB is the rapid.TB that rapid.Check reports to in the core: it
// records whether the property failed and rapid's messages, and never stops
// the goroutine it runs on.
type rapidTB struct {
	name   string
	failed bool
	errors []string
}

var _ rapid.TB = (*rapidTB)(nil)

func (t *rapidTB) Helper()                      {}
func (t *rapidTB) Name() string                 { return t.name }
func (t *rapidTB) Logf(string, ...any)          {}
func (t *rapidTB) Log(...any)                   {}
func (t *rapidTB) Skipf(string, ...any)         {}
func (t *rapidTB) Skip(...any)                  {}
func (t *rapidTB) SkipNow()                     {}
func (t *rapidTB) Fail()                        { t.failed = true }
func (t *rapidTB) FailNow()                     { t.failed = true }
func (t *rapidTB) Failed() bool                 { return t.failed }
func (t *rapidTB) Error(args ...any)            { t.record(fmt.Sprint(args...)) }
func (t *rapidTB) Errorf(f string, args ...any) { t.record(fmt.Sprintf(f, args...)) }
func (t *rapidTB) Fatal(args ...any)            { t.record(fmt.Sprint(args...)) }
func (t *rapidTB) Fatalf(f string, args ...any) { t.record(fmt.Sprintf(f, args...)) }

func (t *rapidTB) record(msg string) {
	t.failed = true
	t.errors = append(t.errors, msg)
}
