package kit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
)

// A SpecError reports the part of a policy spec that could not be parsed.
type SpecError struct {
	Spec string // the whole spec as given
	Part string // the offending part: a strategy, a key or a key=value pair
	Err  error  // what is wrong with it
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("policy spec %q: %s: %v", shorten(e.Spec), shorten(e.Part), e.Err)
}

// maxSpecLen is the longest policy spec ParseSpec reads, in bytes: a spec
// names a strategy and at most five keys.
const maxSpecLen = 1024

// shorten cuts s to 100 bytes for an error message, saying how much more
// there was.
func shorten(s string) string {
	const keep = 100
	if len(s) <= keep {
		return s
	}
	return fmt.Sprintf("%s…(%d bytes more)", strings.ToValidUTF8(s[:keep], ""), len(s)-keep)
}

func (e *SpecError) Unwrap() error { return e.Err }

// ParseSpec parses a policy spec of the form STRATEGY[:key=value,...], for
// example "full:base=100ms,cap=10s" or "decorrelated:base=1s,cap=300s".
//
// The strategy is none, full, equal or decorrelated. The keys are base and
// cap (Go durations such as 100ms or 1m30s), multiplier (a number, default 2,
// or 3 for decorrelated), seed (device, clock or constant; default device)
// and reset (never or on-success; default never: see [ResetRule]). Each key
// may appear once. The error, a [*SpecError], names the part that is wrong.
func ParseSpec(text string) (Spec, error) {
	fail := func(part string, format string, args ...any) (Spec, error) {
		return Spec{}, &SpecError{Spec: text, Part: part, Err: fmt.Errorf(format, args...)}
	}
	if len(text) > maxSpecLen {
		return fail("spec", "%d bytes long; a spec is at most %d", len(text), maxSpecLen)
	}
	name, rest, hasKeys := strings.Cut(strings.TrimSpace(text), ":")
	s := Spec{Strategy: Strategy(strings.TrimSpace(name))}
	switch s.Strategy {
	case None, Full, Equal, Decorrelated:
	case "":
		return fail("strategy", "missing (want none, full, equal or decorrelated)")
	default:
		return fail(string(s.Strategy), "unknown strategy (want none, full, equal or decorrelated)")
	}
	seen := map[string]bool{}
	if hasKeys {
		for _, pair := range strings.Split(rest, ",") {
			key, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
			key, value = strings.TrimSpace(key), strings.TrimSpace(value)
			if !ok || key == "" {
				return fail(strconv.Quote(strings.TrimSpace(pair)), "want key=value")
			}
			if seen[key] {
				return fail(key, "given more than once")
			}
			seen[key] = true
			switch key {
			case "base", "cap":
				d, err := prose.ParseDuration(value)
				if err != nil {
					return fail(key, "%v", err)
				}
				if key == "base" {
					s.Base = d
				} else {
					s.Cap = d
				}
			case "multiplier":
				m, err := strconv.ParseFloat(value, 64)
				if err != nil {
					return fail(key, "%q is not a number", value)
				}
				if !(m >= 1) || m > 1e6 {
					return fail(key, "%v is not in [1, 1e6]", value)
				}
				s.Multiplier = m
			case "seed":
				switch Seed(value) {
				case SeedDevice, SeedClock, SeedConstant:
					s.Seed = Seed(value)
				default:
					return fail(key, "%q is not a seed source (want device, clock or constant)", value)
				}
			case "reset":
				switch ResetRule(value) {
				case ResetNever, ResetOnSuccess:
					s.Reset = ResetRule(value)
				default:
					return fail(key, "%q is not a reset rule (want never or on-success)", value)
				}
			default:
				return fail(key, "unknown key (want base, cap, multiplier, seed or reset)")
			}
		}
	}
	if s.Cap == 0 && s.Base > DefaultCap {
		return fail("cap", "missing, and base %v is above the default cap %v", s.Base, DefaultCap)
	}
	if d := s.withDefaults(); d.Cap < d.Base {
		return fail("cap", "%v is below base %v", d.Cap, d.Base)
	}
	if err := s.Validate(); err != nil {
		return fail(text, "%v", err)
	}
	return s, nil
}

// String returns s in the form [ParseSpec] reads, with its defaults written
// out except for the multiplier, seed and reset when they are the defaults.
func (s Spec) String() string {
	d := s.withDefaults()
	var b strings.Builder
	fmt.Fprintf(&b, "%s:base=%s,cap=%s", d.Strategy, prose.FormatDuration(d.Base), prose.FormatDuration(d.Cap))
	if def := (Spec{Strategy: d.Strategy}).withDefaults().Multiplier; d.Multiplier != def {
		fmt.Fprintf(&b, ",multiplier=%v", strconv.FormatFloat(d.Multiplier, 'g', -1, 64))
	}
	if d.Seed != SeedDevice {
		fmt.Fprintf(&b, ",seed=%s", d.Seed)
	}
	if d.Reset != ResetNever {
		fmt.Fprintf(&b, ",reset=%s", d.Reset)
	}
	return b.String()
}

// FormatApprox writes d as a reader reads a delay: rounded to four
// significant digits, as FormatDuration writes it, so 1m29.83s rather than
// 1m29.825678645s and 71.99ms rather than 71.987654ms.
func FormatApprox(d time.Duration) string {
	if d != 0 {
		unit := time.Duration(1)
		for limit := d.Abs(); limit >= 10000; limit /= 10 {
			unit *= 10
		}
		d = d.Round(unit)
	}
	return prose.FormatDuration(d)
}
