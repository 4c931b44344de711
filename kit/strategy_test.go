package kit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
)

// ksAlpha is the significance level of every goodness-of-fit test below.
//
// Each device is seeded from a hash of its id, so a sample drawn from fixed
// ids is the same on every run: a test passes always or fails always, and
// α is the chance that a correct strategy is rejected at the ids chosen here,
// once, not on each run. At α = 0.001 that chance is small across the dozen
// tests, while the critical distance stays tight: with n = 2000 devices the
// test rejects any D above about 1.95/√n ≈ 0.044, so a window or a minimum
// off by 10% of the window (D = 0.1) is caught with near certainty. Both figures follow
// from the Kolmogorov distribution (see ksPValue), not from trying values.
const ksAlpha = 0.001

// ksDevices is the number of device ids each goodness-of-fit test samples.
const ksDevices = 2000

// deviceIDs returns n fleet-like device ids, dev-000000 upwards.
func deviceIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("dev-%06d", i)
	}
	return ids
}

// nthDelays returns delay n, counting from 0, of each of the devices, in
// seconds: one draw per device, the population a fleet check sees.
func nthDelays(t *testing.T, f Factory, ids []string, n int) []float64 {
	t.Helper()
	out := make([]float64, len(ids))
	for i, id := range ids {
		ds, err := Delays(f(Device{ID: id}), n+1)
		require.NoError(t, err, "Delays(%q, %d)", id, n+1)
		require.Len(t, ds, n+1, "Delays(%q, %d)", id, n+1)
		out[i] = ds[n].Seconds()
	}
	return out
}

// ksUniform returns the one-sample Kolmogorov–Smirnov distance between the
// sample xs and the distribution u, and its p-value.
func ksUniform(xs []float64, u distuv.Uniform) (d, p float64) {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	n := float64(len(xs))
	for i, x := range xs {
		f := u.CDF(x)
		d = max(d, float64(i+1)/n-f, f-float64(i)/n)
	}
	return d, ksPValue(d, len(xs))
}

// ksPValue returns P(D > d) for the one-sample Kolmogorov–Smirnov distance
// of n draws, from the asymptotic Kolmogorov distribution with Stephens'
// small-sample correction λ = (√n + 0.12 + 0.11/√n)·d:
// P = 2 Σₖ (-1)^(k-1) exp(-2k²λ²).
func ksPValue(d float64, n int) float64 {
	sn := math.Sqrt(float64(n))
	lambda := (sn + 0.12 + 0.11/sn) * d
	if lambda < 0.2 {
		return 1 // the series converges slowly here; the distance is tiny
	}
	var p float64
	sign := 1.0
	for k := 1; k <= 100; k++ {
		term := sign * 2 * math.Exp(-2*float64(k*k)*lambda*lambda)
		p += term
		if math.Abs(term) < 1e-12 {
			break
		}
		sign = -sign
	}
	return min(max(p, 0), 1)
}

func TestStrategyDelaysAreUniformOnTheirWindow(t *testing.T) {
	// Delay n of 2000 devices, against the uniform distribution that the
	// strategy's formula gives for that n (window = min(cap, base·mⁿ)).
	// Full, equal and decorrelated jitter each take one draw of the device's
	// generator per delay, so at the same n they scale the same uniform
	// draws: their distances below agree, and each row checks its formula.
	tests := []struct {
		spec string
		n    int
		want distuv.Uniform // seconds
	}{
		{"full:base=1s,cap=60s", 0, distuv.Uniform{Min: 0, Max: 1}},
		{"full:base=1s,cap=60s", 3, distuv.Uniform{Min: 0, Max: 8}},
		{"full:base=1s,cap=60s", 9, distuv.Uniform{Min: 0, Max: 60}},
		{"full:base=100ms,cap=10s,multiplier=1.5", 4, distuv.Uniform{Min: 0, Max: 0.50625}},
		{"equal:base=1s,cap=60s", 0, distuv.Uniform{Min: 0.5, Max: 1}},
		{"equal:base=1s,cap=60s", 3, distuv.Uniform{Min: 4, Max: 8}},
		{"equal:base=1s,cap=60s", 9, distuv.Uniform{Min: 30, Max: 60}},
		{"decorrelated:base=1s,cap=300s", 0, distuv.Uniform{Min: 1, Max: 3}},
		{"decorrelated:base=1s,cap=300s,multiplier=2", 0, distuv.Uniform{Min: 1, Max: 2}},
	}
	ids := deviceIDs(ksDevices)
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/delay%d", tt.spec, tt.n), func(t *testing.T) {
			spec, err := ParseSpec(tt.spec)
			require.NoError(t, err)
			xs := nthDelays(t, spec.Factory(), ids, tt.n)
			assert.GreaterOrEqual(t, slices.Min(xs), tt.want.Min, "the least of delay %d of %d devices; want within [%v, %v)", tt.n, len(ids), tt.want.Min, tt.want.Max)
			assert.Less(t, slices.Max(xs), tt.want.Max, "the largest of delay %d of %d devices; want within [%v, %v)", tt.n, len(ids), tt.want.Min, tt.want.Max)
			d, p := ksUniform(xs, tt.want)
			t.Logf("KS distance %.4f, p = %.3g", d, p)
			assert.GreaterOrEqual(t, p, ksAlpha, "the p-value of delay %d of %d devices: KS distance %.4f from uniform[%v, %v]", tt.n, len(ids), d, tt.want.Min, tt.want.Max)
		})
	}
}

// buggyFactory returns a factory whose device draws delay n from
// uniform(lo(n), hi(n)) seconds, seeded per device as the strategies are.
func buggyFactory(lo, hi func(n int) float64) Factory {
	return func(d Device) Policy {
		rng := rand.New(rand.NewPCG(HashID(d.ID), 1))
		return FromFunc(func(attempt int) time.Duration {
			n := attempt - 1
			return time.Duration((lo(n) + rng.Float64()*(hi(n)-lo(n))) * 1e9)
		})
	}
}

func TestKSRejectsPoliciesWithTheWrongDistribution(t *testing.T) {
	// Each policy below has a bug the goodness-of-fit test exists to catch.
	window := func(n int) float64 { return min(60, math.Pow(2, float64(n))) }
	zero := func(int) float64 { return 0 }
	tests := []struct {
		name string
		f    Factory
		n    int
		want distuv.Uniform
	}{
		{"full jitter on 90% of the window", buggyFactory(zero, func(n int) float64 { return 0.9 * window(n) }), 0, distuv.Uniform{Min: 0, Max: 1}},
		{"full jitter on the window before", buggyFactory(zero, func(n int) float64 { return window(n - 1) }), 3, distuv.Uniform{Min: 0, Max: 8}},
		{"equal jitter that is full jitter", buggyFactory(zero, window), 0, distuv.Uniform{Min: 0.5, Max: 1}},
		{"equal jitter with a 60% floor", buggyFactory(func(n int) float64 { return 0.6 * window(n) }, window), 3, distuv.Uniform{Min: 4, Max: 8}},
		{"no jitter", buggyFactory(window, window), 0, distuv.Uniform{Min: 0, Max: 1}},
		{"decorrelated from 1.2·base", buggyFactory(func(int) float64 { return 1.2 }, func(int) float64 { return 3 }), 0, distuv.Uniform{Min: 1, Max: 3}},
	}
	ids := deviceIDs(ksDevices)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xs := nthDelays(t, tt.f, ids, tt.n)
			d, p := ksUniform(xs, tt.want)
			t.Logf("KS distance %.4f, p = %.3g", d, p)
			assert.Less(t, p, ksAlpha, "the p-value at KS distance %.4f from uniform[%v, %v]; a larger one lets the bug go unnoticed", d, tt.want.Min, tt.want.Max)
		})
	}
}

func TestKSPValue(t *testing.T) {
	// Critical values of the Kolmogorov distribution: P(√n·D > 1.3581) = 0.05
	// and P(√n·D > 1.9495) = 0.001 as n grows.
	tests := []struct {
		lambda, want float64
	}{
		{1.3581, 0.05},
		{1.6276, 0.01},
		{1.9495, 0.001},
	}
	const n = 1_000_000
	for _, tt := range tests {
		assert.InEpsilon(t, tt.want, ksPValue(tt.lambda/math.Sqrt(n), n), 0.01, "ksPValue(%v/√n, n=%d)", tt.lambda, n)
	}
}

func TestNoneIsExactlyTheWindow(t *testing.T) {
	for _, text := range []string{
		"none:base=1s,cap=30s",
		"none:base=100ms,cap=10s,multiplier=1.5",
		"none:base=3s,cap=3s",
		"none:base=1ms,cap=1h,multiplier=7",
	} {
		spec, err := ParseSpec(text)
		require.NoError(t, err)
		for _, id := range []string{"dev-000000", "dev-000001", "x"} {
			got, err := Delays(spec.Factory()(Device{ID: id}), 40)
			require.NoError(t, err)
			for n, d := range got {
				assert.Equal(t, spec.Window(n), d, "%s: delays(%q)[%d]; want the window", text, id, n)
			}
		}
	}
}

func TestJitteredDelaysStayInTheirWindow(t *testing.T) {
	// Over 40 attempts, full stays in [0, window) and equal in
	// [window/2, window), and neither repeats the window itself.
	for _, text := range []string{"full:base=1s,cap=60s", "equal:base=100ms,cap=10s,multiplier=1.5"} {
		spec, err := ParseSpec(text)
		require.NoError(t, err)
		for _, id := range deviceIDs(200) {
			got, err := Delays(spec.Factory()(Device{ID: id}), 40)
			require.NoError(t, err)
			equalWindow := 0
			for n, d := range got {
				w := spec.Window(n)
				lo := time.Duration(0)
				if spec.Strategy == Equal {
					lo = w / 2
				}
				assert.GreaterOrEqual(t, d, lo, "%s: delays(%q)[%d]; want in [%v, %v)", text, id, n, lo, w)
				assert.Less(t, d, w, "%s: delays(%q)[%d]; want in [%v, %v)", text, id, n, lo, w)
				if d == w {
					equalWindow++
				}
			}
			assert.NotEqual(t, len(got), equalWindow, "%s: delays(%q) = the window sequence; want jitter", text, id)
		}
	}
}

func TestDecorrelatedStaysWithinBaseAndCap(t *testing.T) {
	tests := []struct {
		spec     string
		attempts int
	}{
		{"decorrelated:base=1s,cap=300s", 200},
		{"decorrelated:base=100ms,cap=10s,multiplier=2", 200},
		{"decorrelated:base=1s,cap=1s", 20},
		{"decorrelated:base=1ns,cap=2ns,multiplier=1000000", 50},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			spec, err := ParseSpec(tt.spec)
			require.NoError(t, err)
			f := spec.Factory()
			var top time.Duration
			for _, id := range deviceIDs(1000) {
				got, err := Delays(f(Device{ID: id}), tt.attempts)
				require.NoError(t, err, "Delays(%q, %d)", id, tt.attempts)
				require.Len(t, got, tt.attempts, "Delays(%q, %d)", id, tt.attempts)
				// The least and the largest delay of each device, not each
				// delay: testify's reflection over 100,000s of delays
				// would cost seconds.
				least, most := slices.Min(got), slices.Max(got)
				require.GreaterOrEqual(t, least, spec.Base, "delays(%q)[%d], the least; want in [%v, %v]", id, slices.Index(got, least), spec.Base, spec.Cap)
				require.LessOrEqual(t, most, spec.Cap, "delays(%q)[%d], the largest; want in [%v, %v]", id, slices.Index(got, most), spec.Base, spec.Cap)
				top = max(top, most)
			}
			// It grows from the previous delay, so over this many attempts
			// some device comes within 1% of the cap.
			assert.GreaterOrEqual(t, top, spec.Cap*99/100, "largest delay over 1000 devices; want within 1%% of the cap %v", spec.Cap)
		})
	}
}

func TestSpecWindow(t *testing.T) {
	tests := []struct {
		spec Spec
		n    int
		want time.Duration
	}{
		{Spec{Strategy: Full, Base: time.Second, Cap: time.Minute}, 0, time.Second},
		{Spec{Strategy: Full, Base: time.Second, Cap: time.Minute}, 1, 2 * time.Second},
		{Spec{Strategy: Full, Base: time.Second, Cap: time.Minute}, 5, 32 * time.Second},
		{Spec{Strategy: Full, Base: time.Second, Cap: time.Minute}, 6, time.Minute},
		{Spec{Strategy: Full, Base: time.Second, Cap: time.Minute}, 1000, time.Minute},
		{Spec{Strategy: Equal, Base: 100 * time.Millisecond, Cap: 10 * time.Second, Multiplier: 1.5}, 2, 225 * time.Millisecond},
		{Spec{Strategy: None, Base: time.Second, Cap: time.Second}, 3, time.Second},
		{Spec{Strategy: None, Multiplier: 1}, 50, DefaultBase},
		{Spec{Strategy: Full}, 0, DefaultBase},
		{Spec{Strategy: Full}, 7, DefaultCap},
		{Spec{Strategy: Decorrelated, Base: time.Second, Cap: 5 * time.Minute}, 1, 3 * time.Second},
		{Spec{Strategy: Decorrelated, Base: time.Second, Cap: 5 * time.Minute}, 6, 5 * time.Minute},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.spec.Window(tt.n), "%v.Window(%d)", tt.spec, tt.n)
	}
}
