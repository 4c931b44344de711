package cli

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
)

// The setters below read one value of a flag into the field of the
// options that field returns. Each refuses a value out of its range
// with an error that says what was wanted.

// String sets a non-empty string; what names what it should be ("a
// file name").
func String[T any](field func(*T) *string, what string) func(*T, string) error {
	return func(o *T, v string) error {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("want %s, got nothing", what)
		}
		*field(o) = v
		return nil
	}
}

// Choice sets a field of a string type to one of the values list
// returns; what names the kind of value ("server model").
func Choice[T any, V ~string](list func() []V, what string, field func(*T) *V) func(*T, string) error {
	return func(o *T, v string) error {
		if !slices.Contains(list(), V(v)) {
			var names []string
			for _, x := range list() {
				names = append(names, string(x))
			}
			return fmt.Errorf("%q is not a %s (want %s)", v, what, strings.Join(names, ", "))
		}
		*field(o) = V(v)
		return nil
	}
}

// Parsed sets the value parse reads.
func Parsed[T, V any](parse func(string) (V, error), field func(*T) *V) func(*T, string) error {
	return func(o *T, v string) error {
		x, err := parse(v)
		if err == nil {
			*field(o) = x
		}
		return err
	}
}

// Appended adds the values parse reads to a list.
func Appended[T, V any](parse func(string) ([]V, error), field func(*T) *[]V) func(*T, string) error {
	return func(o *T, v string) error {
		xs, err := parse(v)
		*field(o) = append(*field(o), xs...)
		return err
	}
}

// Bool sets a switch from true or false.
func Bool[T any](field func(*T) *bool) func(*T, string) error {
	return func(o *T, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		*field(o) = b
		return nil
	}
}

// Duration sets a positive duration, such as 100ms or 1m30s.
func Duration[T any](field func(*T) *time.Duration) func(*T, string) error {
	return func(o *T, v string) error {
		d, err := prose.ParseDuration(v)
		if err != nil {
			return err
		}
		*field(o) = d
		return nil
	}
}

// Int sets a positive whole number; underscores may group its digits.
func Int[T any](field func(*T) *int) func(*T, string) error {
	return func(o *T, v string) (err error) {
		*field(o), err = positiveInt(v)
		return err
	}
}

// Ints adds to a list of positive whole numbers, comma-separated: all of
// them, or none when one is refused.
func Ints[T any](field func(*T) *[]int) func(*T, string) error {
	return func(o *T, v string) error {
		parts := strings.Split(v, ",")
		for _, part := range parts[1:] {
			// 1,000 or 1,050 is one number written with a thousands
			// separator, not a list of 1 and 0, or of 1 and 50.
			if p := strings.TrimSpace(part); len(p) == 3 && p[0] == '0' && strings.Trim(p, "0123456789") == "" {
				return fmt.Errorf("%q reads as a list: commas separate the numbers here, so write one without them (%s, or %s)",
					v, strings.ReplaceAll(v, ",", ""), strings.ReplaceAll(v, ",", "_"))
			}
		}
		ns := make([]int, len(parts))
		for i, part := range parts {
			n, err := positiveInt(strings.TrimSpace(part))
			if err != nil {
				return err
			}
			ns[i] = n
		}
		*field(o) = append(*field(o), ns...)
		return nil
	}
}

// positiveInt reads a positive whole number; underscores may group its
// digits.
func positiveInt(v string) (int, error) {
	n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is too large", v)
	case err != nil:
		return 0, fmt.Errorf("%q is not a whole number", v)
	case n < 1:
		return 0, fmt.Errorf("%d is not a positive number", n)
	}
	return int(n), nil
}

// Float sets a positive, finite number.
func Float[T any](field func(*T) *float64) func(*T, string) error {
	return func(o *T, v string) error {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%q is not a number", v)
		}
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("%s is not a positive number", v)
		}
		*field(o) = x
		return nil
	}
}

// Fraction reads a fraction of at least 0 and below 1, as a percentage
// (10%) or a number (0.1).
func Fraction(v string) (float64, error) {
	t := strings.TrimSpace(v)
	scale := 1.0
	if p, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = p, 100
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || !(x >= 0) || x/scale >= 1 {
		return 0, fmt.Errorf("%q is not a fraction of at least 0 and below 1 (such as 10%% or 0.1)", v)
	}
	return x / scale, nil
}
