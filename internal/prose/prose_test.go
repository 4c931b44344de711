package prose

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseBytes reads what FormatBytes writes, and what users type.
func TestParseBytes(t *testing.T) {
	for _, n := range []int64{1, 512, 1536, 4 << 30, 12 << 30, 1 << 40} {
		got, err := ParseBytes(FormatBytes(n))
		require.NoError(t, err, "ParseBytes(%q)", FormatBytes(n))
		assert.Equal(t, n, got, "ParseBytes(FormatBytes(%d))", n)
	}
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{"8GiB", 8 << 30, ""},
		{" 512 MiB ", 512 << 20, ""},
		{"1073741824", 1 << 30, ""},
		{"lots", 0, `"lots" is not a size (a whole number of bytes, or of KiB, MiB, GiB or TiB: e.g. 8GiB)`},
		{"0", 0, "0 is not positive"},
		{" 0 GiB", 0, "0 GiB is not positive"},
		{"-1GiB", 0, "-1GiB is not positive"},
		{"1.3B", 0, `"1.3B" is not a size (a whole number of bytes, or of KiB, MiB, GiB or TiB: e.g. 8GiB)`},
		{"1e3", 0, `"1e3" is not a size (a whole number of bytes, or of KiB, MiB, GiB or TiB: e.g. 8GiB)`},
		{"NaN", 0, `"NaN" is not a size (a whole number of bytes, or of KiB, MiB, GiB or TiB: e.g. 8GiB)`},
		{"9000000TiB", 0, "9000000TiB is too large"},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, "ParseBytes(%q)", tt.in)
			continue
		}
		require.NoError(t, err, "ParseBytes(%q)", tt.in)
		assert.Equal(t, tt.want, got, "ParseBytes(%q)", tt.in)
	}
}

// TestParseDuration reads what time.ParseDuration reads, and says why it
// refuses the rest.
func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"1m30s", 90 * time.Second, ""},
		{" 100ms ", 100 * time.Millisecond, ""},
		{"2562047h", 2562047 * time.Hour, ""},
		{"soon", 0, `"soon" is not a duration (e.g. 100ms, 10s, 1m30s)`},
		{"10", 0, `"10" is not a duration (e.g. 100ms, 10s, 1m30s)`},
		{"1s:cap=2s", 0, `"1s:cap=2s" is not a duration (e.g. 100ms, 10s, 1m30s)`},
		{"0s", 0, "0s is not positive"},
		{"-5m", 0, "-5m0s is not positive"},
		{"9999999h", 0, "9999999h is longer than the longest duration, 2562047h47m16.854775807s"},
		{"1h99999999999999999999s", 0, "1h99999999999999999999s is longer than the longest duration, 2562047h47m16.854775807s"},
		{"-9999999h", 0, "-9999999h is not positive"},
		{"-0s", 0, "0s is not positive"},
		{".1ns", 0, ".1ns is shorter than the shortest duration, 1ns"},
		{"0.0000000001s", 0, "0.0000000001s is shorter than the shortest duration, 1ns"},
		{"0.000ms", 0, "0s is not positive"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, "ParseDuration(%q)", tt.in)
			continue
		}
		require.NoError(t, err, "ParseDuration(%q)", tt.in)
		assert.Equal(t, tt.want, got, "ParseDuration(%q)", tt.in)
	}
}

func TestFormatCount(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", -1000: "-1,000", -999: "-999",
		1_234_567: "1,234,567", 100_000_000: "100,000,000", math.MaxInt64: "9,223,372,036,854,775,807",
	} {
		assert.Equal(t, want, FormatCount(n), "FormatCount(%d)", n)
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0, "0"},
		{1234567, "1,234,567"},
		{-1000, "-1,000"},
		{1234.56, "1,234.6"},
		{-100.04, "-100.0"},
		{1e20, "100,000,000,000,000,000,000.0"},
		{0.6, "0.6"},
		{12.345, "12.3"},
		{0.000012345, "1.23e-05"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Number(tt.x), "Number(%g)", tt.x)
	}
	assert.Equal(t, "unlimited", PerSecond(0))
	assert.Equal(t, "1,500/s", PerSecond(1500))
	assert.Equal(t, "1 client", Plural(1, "client"))
	assert.Equal(t, "0 clients", Plural(0, "client"))
	assert.Equal(t, "2,000 clients", Plural(2000, "client"))
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{5 * time.Minute, "5m"},
		{90 * time.Minute, "1h30m"},
		{time.Hour, "1h"},
		{time.Hour + time.Second, "1h0m1s"},
		{100 * time.Millisecond, "100ms"},
		{1500 * time.Microsecond, "1.5ms"},
		{0, "0s"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FormatDuration(tt.d), "FormatDuration(%d)", int64(tt.d))
	}
}

// TestList joins as a sentence does, for every length.
func TestList(t *testing.T) {
	tests := []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b", "c"}, "a, b and c"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, List(tt.items, "and"), "List(%q)", tt.items)
	}
	assert.Equal(t, "1, 2 or 3", ListOf([]int{1, 2, 3}, strconv.Itoa, "or"))
}

// TestPercent writes shares with at most three significant digits.
func TestPercent(t *testing.T) {
	for x, want := range map[float64]string{1: "100%", 0.01: "1%", 0.0125: "1.25%", 0.139: "13.9%", 0: "0%"} {
		assert.Equal(t, want, Percent(x), "Percent(%v)", x)
	}
}
