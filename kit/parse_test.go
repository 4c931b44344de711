package kit_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

func TestParseSpecs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"full", []string{"full"}},
		{"full:base=100ms,cap=10s", []string{"full:base=100ms,cap=10s"}},
		{"none:base=1s,cap=30s,full:base=1s,cap=30s", []string{"none:base=1s,cap=30s", "full:base=1s,cap=30s"}},
		{"none,full,equal,decorrelated", []string{"none", "full", "equal", "decorrelated"}},
		{"none:base=1s;full", []string{"none:base=1s", "full"}},
		{" full , none:cap=5s ", []string{"full", "none:cap=5s"}},
	}
	for _, tt := range tests {
		specs, err := kit.ParseSpecs(tt.in)
		require.NoError(t, err, "ParseSpecs(%q)", tt.in)
		var want []string
		for _, w := range tt.want {
			s, err := kit.ParseSpec(w)
			require.NoError(t, err)
			want = append(want, s.String())
		}
		var got []string
		for _, s := range specs {
			got = append(got, s.String())
		}
		assert.Equal(t, want, got, "ParseSpecs(%q)", tt.in)
	}
	_, err := kit.ParseSpecs("full:base=1s,,cap=30s")
	assert.EqualError(t, err, `policy spec "full:base=1s,,cap=30s": "": want key=value`)
	_, err = kit.ParseSpecs("full,fast")
	assert.EqualError(t, err, `policy spec "fast": fast: unknown strategy (want none, full, equal or decorrelated)`)
}

// TestParseBytes reads what FormatBytes writes, and what users type.
func TestParseBytes(t *testing.T) {
	for _, n := range []int64{1, 512, 1536, 4 << 30, 12 << 30, 1 << 40} {
		got, err := kit.ParseBytes(kit.FormatBytes(n))
		require.NoError(t, err, "ParseBytes(%q)", kit.FormatBytes(n))
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
		got, err := kit.ParseBytes(tt.in)
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
		got, err := kit.ParseDuration(tt.in)
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
		assert.Equal(t, want, kit.FormatCount(n), "FormatCount(%d)", n)
	}
}
