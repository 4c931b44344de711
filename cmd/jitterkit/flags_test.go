package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// TestFlagForms parses the forms a flag may take, and a list of policies,
// into the gate's configuration.
func TestFlagForms(t *testing.T) {
	o := &options{command: "compare"}
	err := parseFlags("compare", []string{"--policy=none:base=1s,cap=30s,full", "-policy", "equal", "--clients", "1000,10_000", "--clients=100000", "--down=1m30s"}, o)
	require.NoError(t, err)
	assert.Equal(t, []string{"none:base=1s,cap=30s", "full:base=100ms,cap=10s", "equal:base=100ms,cap=10s"}, specTexts(o))
	assert.Equal(t, []int{1000, 10000, 100000}, o.clients)
	assert.Equal(t, 90*time.Second, o.cfg.Scenario.Down)

	o = &options{command: "check"}
	require.NoError(t, parseFlags("check", []string{"--policy", "full", "--require-reproducible"}, o))
	assert.True(t, o.cfg.Checks.RequireReproducible)

	o = &options{command: "replay"}
	require.NoError(t, parseFlags("replay", []string{"--policy", "full", "--retry-after", "3s"}, o))
	assert.Equal(t, sim.RetryAfter, o.cfg.Scenario.WithDefaults().Server, "the hint picks its server")
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
	require.NoError(t, readConfig([]byte(cfg), "ci.yaml", "check", o))
	require.NoError(t, parseFlags("check", []string{"--devices", "2000"}, o))
	assert.Equal(t, 2000, o.cfg.Checks.Devices, "the flag")
	assert.Equal(t, 0.2, o.cfg.Checks.Thresholds.MinCV)
	assert.Equal(t, []string{"equal:base=1s,cap=1m"}, specTexts(o))
	assert.Nil(t, o.clients, "check takes no clients")
	assert.Zero(t, o.cfg.Scenario.Down, "check takes no down")

	o = &options{command: "compare"}
	require.NoError(t, readConfig([]byte("policy: [none, full]\nclients: [400, 800]\n"), "ci.yaml", "compare", o))
	require.NoError(t, parseFlags("compare", []string{"--policy", "equal", "--policy", "decorrelated"}, o))
	assert.Equal(t, []string{"equal:base=100ms,cap=10s", "decorrelated:base=100ms,cap=10s"}, specTexts(o), "the command line's list replaces the config's")
	assert.Equal(t, []int{400, 800}, o.clients)

	o = &options{command: "gate", given: map[string]bool{}}
	err := readConfig([]byte("policy: full\nclients: [400, 800]\nscenario:\n"), "ci.yaml", "gate", o)
	assert.EqualError(t, err, "ci.yaml:3: scenario: want a single value")
}

// TestConfigDocuments reads configs of one YAML document, empty documents
// around it included, and refuses a second document that sets anything.
func TestConfigDocuments(t *testing.T) {
	for _, tt := range []struct{ name, data, err string }{
		{"one", "policy: full\n", ""},
		{"a leading marker", "---\npolicy: full\n", ""},
		{"a trailing marker", "policy: full\n---\n", ""},
		{"empty documents after", "policy: full\n---\n---\n", ""},
		{"a second mapping", "policy: full\n---\nclients: 3\n", "ci.yaml:2: a second YAML document; a config is one mapping of flag names to values"},
		{"an alias as a key", "policy: &clients full\n*clients : 250\n", "ci.yaml:2: a key must be a flag's name, written plainly"},
		{"a tagged key", "!!binary cG9saWN5: full\n", "ci.yaml:1: a key must be a flag's name, written plainly"},
		{"a second after an empty one", "policy: full\n---\n---\nclients: 3\n", "ci.yaml:3: a second YAML document; a config is one mapping of flag names to values"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := &options{command: "check"}
			err := readConfig([]byte(tt.data), "ci.yaml", "check", o)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []string{"full:base=100ms,cap=10s"}, specTexts(o))
		})
	}
}

// TestConfigCoversFlags sets every flag from a config file, with the
// values a command line would give.
func TestConfigCoversFlags(t *testing.T) {
	values := map[string]string{
		"policy": "full", "exec": "true", "trace": "t.csv", "exec-timeout": "1m", "memory-limit": "1GiB",
		"cap": "10s", "devices": "2000", "min-cv": "0.1", "require-reproducible": "true", "scenario": "storm",
		"clients": "500", "accept-rate": "10", "down": "1s", "window": "1s", "start-spread": "1s", "horizon": "1h",
		"period": "1m", "timer-offset": "scenario", "retry-after": "1s", "server": "token-bucket", "burst": "100", "retries": "20", "runs": "3", "seed": "7", "threshold": "0.5", "report": "out", "json": "r.json", "fix": "true", "sample": "1/10",
		"rate": "50", "timeout": "2s", "rtt": "20ms", "dip": "5%", "dip-for": "10s", "dip-at": "20s", "ramp": "30s",
		"queue-limit": "50", "drop-expired": "true", "on-drop": "continue", "refuse-cold": "true", "cpu": "1000",
		"handshake": "5", "warm-up": "2000", "cold-drop": "50ms", "latency": "5ms", "latency-sd": "1ms", "tipping-point": "true",
		"budget": "finagle:percent=10%", "budget-scope": "fleet", "quiet": "true",
		"warnings": "fail", "allow-wide-window": "true", "collapse-bound": "0.01",
	}
	var yaml strings.Builder
	for _, f := range flags {
		if f.Name == "config" {
			continue
		}
		v, ok := values[f.Name]
		require.True(t, ok, "no value for --%s", f.Name)
		fmt.Fprintf(&yaml, "%s: %q\n", f.Name, v)
	}
	o := &options{command: "replay"}
	require.NoError(t, readConfig([]byte(yaml.String()), "all.yaml", "replay", o))
	assert.Equal(t, sim.Storm, o.cfg.Scenario.Kind)
	assert.Equal(t, uint64(7), o.cfg.Seed)
}

// specTexts returns the specs o holds, as the report names them.
func specTexts(o *options) []string {
	var out []string
	for _, s := range o.specs {
		out = append(out, s.String())
	}
	return out
}

// TestReproduceKeepsSwitches writes the command that finds a
// counterexample again with every switch as it was given: a switch turned
// off stays off.
func TestReproduceKeepsSwitches(t *testing.T) {
	var switches []string
	for _, f := range flags {
		if f.Arg == "" {
			switches = append(switches, f.Name)
		}
	}
	require.ElementsMatch(t, []string{"fix", "require-reproducible", "drop-expired", "refuse-cold", "allow-wide-window", "tipping-point", "quiet"}, switches, "the switches; a new one needs its rows here")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--fix=false"}, "jitterkit check --policy full --fix=false --seed 7"},
		{[]string{"--fix"}, "jitterkit check --policy full --fix --seed 7"},
		{[]string{"--fix=true"}, "jitterkit check --policy full --fix --seed 7"},
		{[]string{"--fix=0"}, "jitterkit check --policy full --fix=0 --seed 7"},
		{[]string{"--require-reproducible=false"}, "jitterkit check --policy full --require-reproducible=false --seed 7"},
		{[]string{"--require-reproducible"}, "jitterkit check --policy full --require-reproducible --seed 7"},
		{[]string{"--require-reproducible=true"}, "jitterkit check --policy full --require-reproducible --seed 7"},
		{[]string{"--quiet"}, "jitterkit check --policy full --quiet --seed 7"},
	}
	for _, tt := range tests {
		o := &options{command: "gate"}
		require.NoError(t, parseFlags("gate", append([]string{"--policy", "full"}, tt.args...), o))
		assert.Equal(t, tt.want, reproduce(o)(gate.Checks, 7), "%v", tt.args)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "overload", "--drop-expired=false"}, "jitterkit replay --policy full --scenario overload --drop-expired=false --runs 3 --seed 7"},
		{[]string{"--scenario", "overload", "--drop-expired", "--tipping-point"}, "jitterkit replay --policy full --scenario overload --drop-expired --tipping-point --runs 3 --seed 7"},
		{[]string{"--scenario", "reconnect", "--refuse-cold=false"}, "jitterkit replay --policy full --scenario reconnect --refuse-cold=false --runs 3 --seed 7"},
	} {
		o := &options{command: "gate"}
		require.NoError(t, parseFlags("gate", append([]string{"--policy", "full"}, tt.args...), o))
		assert.Equal(t, tt.want, reproduce(o)(gate.Replay, 7), "%v", tt.args)
	}
	o := &options{command: "gate"}
	require.NoError(t, parseFlags("gate", []string{"--policy", "full", "--fix=false", "--clients", "50", "--runs", "5"}, o))
	assert.Equal(t, "jitterkit replay --policy full --fix=false --clients 50 --runs 3 --seed 9", reproduce(o)(gate.Replay, 9), "a replay's run")
}

// parseFlags parses args as the command line of command into o, as
// parseCommand does before it validates.
func parseFlags(command string, args []string, o *options) error {
	if o.given == nil {
		o.given = map[string]bool{}
	}
	given, err := table.Parse(command, args, o, o.given)
	o.args = given
	return err
}

// readConfig reads data as the config file path of command into o, as
// loadConfig does with a file's contents.
func readConfig(data []byte, path, command string, o *options) error {
	if o.given == nil {
		o.given = map[string]bool{}
	}
	return table.ReadConfig(data, path, command, "config", o, o.given, func() *options { return &options{} })
}
