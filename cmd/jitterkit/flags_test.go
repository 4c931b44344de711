package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/sim"
)

func TestSplitSpecs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"full", []string{"full"}},
		{"full:base=100ms,cap=10s", []string{"full:base=100ms,cap=10s"}},
		{"none:base=1s,cap=30s,full:base=1s,cap=30s", []string{"none:base=1s,cap=30s", "full:base=1s,cap=30s"}},
		{"none,full,equal,decorrelated", []string{"none", "full", "equal", "decorrelated"}},
		{"none:base=1s;full", []string{"none:base=1s", "full"}},
		{"full:base=1s,,cap=30s", []string{"full:base=1s,,cap=30s"}},
		{" full , none:cap=5s ", []string{"full", "none:cap=5s"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, splitSpecs(tt.in), "splitSpecs(%q)", tt.in)
	}
}

// TestFlagForms parses the forms a flag may take, and a list of policies,
// into the gate's configuration.
func TestFlagForms(t *testing.T) {
	o := &options{command: "compare"}
	err := parseFlags("compare", []string{"--policy=none:base=1s,cap=30s,full", "-policy", "equal", "--clients", "1000,10_000", "--clients=100000", "--down=1m30s"}, o)
	require.NoError(t, err)
	assert.Equal(t, []string{"none:base=1s,cap=30s", "full", "equal"}, o.policies)
	assert.Equal(t, []int{1000, 10000, 100000}, o.clients)
	assert.Equal(t, 90*time.Second, o.cfg.Scenario.Down)

	o = &options{command: "check"}
	require.NoError(t, parseFlags("check", []string{"--policy", "full", "--require-reproducible"}, o))
	assert.True(t, o.cfg.Checks.RequireReproducible)

	o = &options{command: "replay"}
	require.NoError(t, parseFlags("replay", []string{"--policy", "full", "--retry-after", "3s"}, o))
	assert.Equal(t, sim.RetryAfter, o.cfg.Scenario.Server)
	assert.Equal(t, 3*time.Second, o.cfg.Scenario.RetryAfter)

	o = &options{command: "check"}
	err = parseFlags("check", []string{"--policy", "full", "--require-reproducible=false", "--", "x"}, o)
	assert.ErrorContains(t, err, `takes no arguments, got "x"`)
}

// TestConfigOverride reads a config, then the command line over it: the
// command line wins, a list it gives replaces the config's, and a key for
// another command is read but not used.
func TestConfigOverride(t *testing.T) {
	o := &options{command: "check"}
	cfg := "policy: equal:base=1s,cap=60s\ndevices: 5000\nmin-cv: 0.2\nclients: 50000\ndown: 60s\n"
	require.NoError(t, readConfig(strings.NewReader(cfg), "ci.yaml", "check", o))
	require.NoError(t, parseFlags("check", []string{"--devices", "2000"}, o))
	assert.Equal(t, 2000, o.cfg.Checks.Devices, "the flag")
	assert.Equal(t, 0.2, o.cfg.Checks.Thresholds.MinCV)
	assert.Equal(t, []string{"equal:base=1s,cap=60s"}, o.policies)
	assert.Nil(t, o.clients, "check takes no clients")
	assert.Zero(t, o.cfg.Scenario.Down, "check takes no down")

	o = &options{command: "compare"}
	require.NoError(t, readConfig(strings.NewReader("policy: [none, full]\nclients: [400, 800]\n"), "ci.yaml", "compare", o))
	require.NoError(t, parseFlags("compare", []string{"--policy", "equal", "--policy", "decorrelated"}, o))
	assert.Equal(t, []string{"equal", "decorrelated"}, o.policies, "the command line's list replaces the config's")
	assert.Equal(t, []int{400, 800}, o.clients)

	o = &options{command: "gate", given: map[string]bool{}}
	err := readConfig(strings.NewReader("policy: full\nclients: [400, 800]\nscenario:\n"), "ci.yaml", "gate", o)
	assert.EqualError(t, err, "ci.yaml:3: scenario: want a single value")
}

// TestConfigCoversFlags sets every flag from a config file, with the
// values a command line would give.
func TestConfigCoversFlags(t *testing.T) {
	values := map[string]string{
		"policy": "full", "exec": "true", "trace": "t.csv", "exec-timeout": "1m", "memory-limit": "1GiB",
		"cap": "10s", "devices": "2000", "min-cv": "0.1", "require-reproducible": "true", "scenario": "storm",
		"clients": "500", "accept-rate": "10", "down": "1s", "window": "1s", "start-spread": "1s", "horizon": "1h",
		"period": "1m", "timer-offset": "scenario", "retry-after": "1s", "runs": "3", "seed": "7", "threshold": "0.5", "report": "out", "json": "r.json", "fix": "true", "sample": "1/10",
	}
	var yaml strings.Builder
	for _, f := range flags {
		if f.name == "config" {
			continue
		}
		v, ok := values[f.name]
		require.True(t, ok, "no value for --%s", f.name)
		fmt.Fprintf(&yaml, "%s: %q\n", f.name, v)
	}
	o := &options{command: "replay"}
	require.NoError(t, readConfig(strings.NewReader(yaml.String()), "all.yaml", "replay", o))
	assert.Equal(t, sim.Storm, o.cfg.Scenario.Kind)
	assert.Equal(t, uint64(7), o.cfg.Seed)
}

// TestSplitSpecsIsLinear splits a list of 200,000 key=value pairs, which a
// split that grows one string by concatenation takes quadratic time over.
func TestSplitSpecsIsLinear(t *testing.T) {
	v := "full:" + strings.Repeat("base=1s,", 200_000) + "cap=2s"
	allocs := testing.AllocsPerRun(1, func() { splitSpecs(v) })
	// Lengths, not the values: a failure would print 1.6 MB.
	got := splitSpecs(v)
	require.Equal(t, 1, len(got), "specs splitSpecs gave")
	require.Equal(t, len(v), len(got[0]), "the length of the one spec")
	// Linear: a few allocations per part at most, not one string per part
	// grown to the whole length.
	assert.LessOrEqual(t, allocs, 100.0, "allocations of splitSpecs for one spec of 200,000 parts; want a few")
}
