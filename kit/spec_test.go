package kit

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		text   string
		want   Spec
		String string // what Spec.String writes back
	}{
		{"full:base=100ms,cap=10s", Spec{Strategy: Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second}, "full:base=100ms,cap=10s"},
		{"decorrelated:base=1s,cap=300s", Spec{Strategy: Decorrelated, Base: time.Second, Cap: 300 * time.Second}, "decorrelated:base=1s,cap=5m"},
		{"none:base=1s,cap=30s", Spec{Strategy: None, Base: time.Second, Cap: 30 * time.Second}, "none:base=1s,cap=30s"},
		{"equal", Spec{Strategy: Equal}, "equal:base=100ms,cap=10s"},
		{"decorrelated", Spec{Strategy: Decorrelated}, "decorrelated:base=100ms,cap=10s"},
		{"  full : base = 1s , cap = 2s ", Spec{Strategy: Full, Base: time.Second, Cap: 2 * time.Second}, "full:base=1s,cap=2s"},
		{"equal:multiplier=1.5,seed=constant", Spec{Strategy: Equal, Multiplier: 1.5, Seed: SeedConstant}, "equal:base=100ms,cap=10s,multiplier=1.5,seed=constant"},
		{"full:seed=clock", Spec{Strategy: Full, Seed: SeedClock}, "full:base=100ms,cap=10s,seed=clock"},
		{"full:seed=device,multiplier=2", Spec{Strategy: Full, Multiplier: 2, Seed: SeedDevice}, "full:base=100ms,cap=10s"},
		{"decorrelated:multiplier=2", Spec{Strategy: Decorrelated, Multiplier: 2}, "decorrelated:base=100ms,cap=10s,multiplier=2"},
		{"full:cap=1h30m,base=90m", Spec{Strategy: Full, Base: 90 * time.Minute, Cap: 90 * time.Minute}, "full:base=1h30m,cap=1h30m"},
		{"full:base=1ns,cap=1ns", Spec{Strategy: Full, Base: 1, Cap: 1}, "full:base=1ns,cap=1ns"},
		{"full:base=20s,cap=1m", Spec{Strategy: Full, Base: 20 * time.Second, Cap: time.Minute}, "full:base=20s,cap=1m"},
		{"full:multiplier=1e6", Spec{Strategy: Full, Multiplier: 1e6}, "full:base=100ms,cap=10s,multiplier=1e+06"},
		{"none:cap=10s", Spec{Strategy: None, Cap: 10 * time.Second}, "none:base=100ms,cap=10s"},
		{"full:reset=on-success", Spec{Strategy: Full, Reset: ResetOnSuccess}, "full:base=100ms,cap=10s,reset=on-success"},
		{"full:reset=never", Spec{Strategy: Full, Reset: ResetNever}, "full:base=100ms,cap=10s"},
		{"decorrelated:reset=on-success,seed=clock,base=1s,cap=1m", Spec{Strategy: Decorrelated, Base: time.Second, Cap: time.Minute, Seed: SeedClock, Reset: ResetOnSuccess}, "decorrelated:base=1s,cap=1m,seed=clock,reset=on-success"},
	}
	for _, tt := range tests {
		got, err := ParseSpec(tt.text)
		if !assert.NoError(t, err, "ParseSpec(%q)", tt.text) {
			continue
		}
		assert.Equal(t, tt.want, got, "ParseSpec(%q)", tt.text)
		assert.Equal(t, tt.String, got.String(), "ParseSpec(%q).String()", tt.text)
		again, err := ParseSpec(got.String())
		if assert.NoError(t, err, "ParseSpec(%q), the String of ParseSpec(%q)", got.String(), tt.text) {
			assert.Equal(t, got.withDefaults(), again.withDefaults(), "ParseSpec(%q), against the spec it was written from", got.String())
		}
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		text string
		part string
		want string
	}{
		{"full:base=1s,cap=soon", "cap", `policy spec "full:base=1s,cap=soon": cap: "soon" is not a duration (e.g. 100ms, 10s, 1m30s)`},
		{"", "strategy", `policy spec "": strategy: missing (want none, full, equal or decorrelated)`},
		{"  ", "strategy", `policy spec "  ": strategy: missing (want none, full, equal or decorrelated)`},
		{":base=1s", "strategy", `policy spec ":base=1s": strategy: missing (want none, full, equal or decorrelated)`},
		{"bogus", "bogus", `policy spec "bogus": bogus: unknown strategy (want none, full, equal or decorrelated)`},
		{"Full", "Full", `policy spec "Full": Full: unknown strategy (want none, full, equal or decorrelated)`},
		{"full:", `""`, `policy spec "full:": "": want key=value`},
		{"full:base=1s,", `""`, `policy spec "full:base=1s,": "": want key=value`},
		{"full:base", `"base"`, `policy spec "full:base": "base": want key=value`},
		{"full:=1s", `"=1s"`, `policy spec "full:=1s": "=1s": want key=value`},
		{"full:base=1s,base=2s", "base", `policy spec "full:base=1s,base=2s": base: given more than once`},
		{"full:base=1s:cap=2s", "base", `policy spec "full:base=1s:cap=2s": base: "1s:cap=2s" is not a duration (e.g. 100ms, 10s, 1m30s)`},
		{"full:base=10", "base", `policy spec "full:base=10": base: "10" is not a duration (e.g. 100ms, 10s, 1m30s)`},
		{"full:base=0s", "base", `policy spec "full:base=0s": base: 0s is not positive`},
		{"full:base=-1s", "base", `policy spec "full:base=-1s": base: -1s is not positive`},
		{"full:cap=1s,base=2s", "cap", `policy spec "full:cap=1s,base=2s": cap: 1s is below base 2s`},
		{"full:cap=50ms", "cap", `policy spec "full:cap=50ms": cap: 50ms is below base 100ms`},
		{"full:base=20s", "cap", `policy spec "full:base=20s": cap: missing, and base 20s is above the default cap 10s`},
		{"full:multiplier=x", "multiplier", `policy spec "full:multiplier=x": multiplier: "x" is not a number`},
		{"full:multiplier=0.5", "multiplier", `policy spec "full:multiplier=0.5": multiplier: 0.5 is not in [1, 1e6]`},
		{"full:multiplier=NaN", "multiplier", `policy spec "full:multiplier=NaN": multiplier: NaN is not in [1, 1e6]`},
		{"full:multiplier=+Inf", "multiplier", `policy spec "full:multiplier=+Inf": multiplier: +Inf is not in [1, 1e6]`},
		{"full:multiplier=2e6", "multiplier", `policy spec "full:multiplier=2e6": multiplier: 2e6 is not in [1, 1e6]`},
		{"full:seed=random", "seed", `policy spec "full:seed=random": seed: "random" is not a seed source (want device, clock or constant)`},
		{"full:jitter=0.5", "jitter", `policy spec "full:jitter=0.5": jitter: unknown key (want base, cap, multiplier, seed or reset)`},
		{"full:reset=always", "reset", `policy spec "full:reset=always": reset: "always" is not a reset rule (want never or on-success)`},
		{"full:reset=", "reset", `policy spec "full:reset=": reset: "" is not a reset rule (want never or on-success)`},
		{"full:reset=On-Success", "reset", `policy spec "full:reset=On-Success": reset: "On-Success" is not a reset rule (want never or on-success)`},
		{"full:reset=never,reset=on-success", "reset", `policy spec "full:reset=never,reset=on-success": reset: given more than once`},
	}
	for _, tt := range tests {
		_, err := ParseSpec(tt.text)
		assert.EqualError(t, err, tt.want, "ParseSpec(%q)", tt.text)
		var se *SpecError
		if assert.ErrorAs(t, err, &se, "ParseSpec(%q)", tt.text) {
			assert.Equal(t, tt.part, se.Part, "ParseSpec(%q): the *SpecError's Part", tt.text)
			assert.Equal(t, tt.text, se.Spec, "ParseSpec(%q): the *SpecError's Spec", tt.text)
		}
	}
}

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		spec Spec
		want string // empty: valid
	}{
		{Spec{Strategy: Full}, ""},
		{Spec{Strategy: "jittery"}, `unknown strategy "jittery" (want none, full, equal or decorrelated)`},
		{Spec{}, `unknown strategy "" (want none, full, equal or decorrelated)`},
		{Spec{Strategy: Full, Base: -time.Second}, "base -1s is negative"},
		{Spec{Strategy: Full, Base: time.Second, Cap: time.Millisecond}, "cap 1ms is below base 1s"},
		{Spec{Strategy: Full, Multiplier: 0.5}, "multiplier 0.5 is not in [1, 1e6]"},
		{Spec{Strategy: Full, Seed: "time"}, `unknown seed "time" (want device, clock or constant)`},
		{Spec{Strategy: Full, Reset: ResetOnSuccess}, ""},
		{Spec{Strategy: Full, Reset: "on-failure"}, `unknown reset "on-failure" (want never or on-success)`},
	}
	for _, tt := range tests {
		err := tt.spec.Validate()
		if tt.want == "" {
			assert.NoError(t, err, "%#v.Validate()", tt.spec)
			continue
		}
		assert.EqualError(t, err, tt.want, "%#v.Validate()", tt.spec)
	}
}

func TestSpecFactoryPanicsOnAnInvalidSpec(t *testing.T) {
	assert.PanicsWithValue(t, "kit: cap 1ms is below base 1s", func() {
		Spec{Strategy: Full, Base: time.Second, Cap: time.Millisecond}.Factory()
	}, "Factory of an invalid spec")
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"full:base=100ms,cap=10s",
		"decorrelated:base=1s,cap=300s",
		"equal:multiplier=1.5,seed=constant",
		"decorrelated:reset=on-success",
		"none",
		"full:base=1s,cap=soon",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSpec(text)
		if err != nil {
			var se *SpecError
			require.ErrorAs(t, err, &se, "ParseSpec(%q) error is a %T", text, err)
			return
		}
		require.NoError(t, s.Validate(), "ParseSpec(%q) = %#v, which is not valid", text, s)
		again, err := ParseSpec(s.String())
		require.NoError(t, err, "ParseSpec(%q) = %#v, whose String %q does not parse", text, s, s.String())
		require.Equal(t, s.withDefaults(), again.withDefaults(), "ParseSpec(%q) = %#v, against what its String %q parses to", text, s, s.String())
		// The spec makes a policy that runs.
		_, err = Delays(s.Factory()(Device{ID: text}), 3)
		require.NoError(t, err, "%s: Delays", s)
	})
}

func TestParseSpecTooLong(t *testing.T) {
	text := "full:" + strings.Repeat("base=1s,", 100_000)
	_, err := ParseSpec(text)
	var se *SpecError
	require.ErrorAs(t, err, &se, "ParseSpec of %d bytes", len(text))
	require.Equal(t, "spec", se.Part, "ParseSpec of %d bytes: the part named", len(text))
	want := `policy spec "full:base=1s,base=1s,base=1s,base=1s,base=1s,base=1s,base=1s,base=1s,base=1s,base=1s,base=1s,base=1s…(799905 bytes more)": spec: 800005 bytes long; a spec is at most 1024`
	assert.EqualError(t, err, want)
}
