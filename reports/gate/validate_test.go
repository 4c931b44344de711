package gate_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// TestConfigValidate refuses, before any source is opened, what Run would
// refuse, each an *InputError in the refusing package's words, and accepts
// what depends on a recording not yet read.
func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		cfg   gate.Config
		p     gate.Policy
		sizes []int
		err   string
	}{
		{"the defaults", gate.Config{}, gate.Policy{Source: kit.SourceSpec}, nil, ""},
		{"checks over the memory limit", gate.Config{Checks: properties.Config{Devices: 100_000, MemoryLimit: 64 << 20}}, gate.Policy{Source: kit.SourceSpec}, nil,
			"properties: checking 100000 devices over 32 attempts would need about 167.8 MiB, above the memory limit of 64.0 MiB: check fewer devices or fewer attempts, or raise the limit"},
		{"a scenario out of range", gate.Config{Scenario: sim.Scenario{Clients: 10_000_000_000}}, gate.Policy{Source: kit.SourceExec}, nil, "sim: clients 10000000000 is more than a replay holds (4294967295)"},
		{"one of compare's sizes out of range", gate.Config{Steps: gate.Replay}, gate.Policy{Source: kit.SourceSpec}, []int{400, 10_000_000_000}, "sim: clients 10000000000 is more than a replay holds (4294967295)"},
		{"the checks alone skip the scenario", gate.Config{Steps: gate.Checks, Scenario: sim.Scenario{Clients: 10_000_000_000}}, gate.Policy{Source: kit.SourceSpec}, nil, ""},
		{"a small sample", gate.Config{Scenario: sim.Scenario{Clients: 100_000}, Sample: 100}, gate.Policy{Source: kit.SourceSpec}, nil,
			"a sample of 1/100 of 100000 devices holds 1000, fewer than the 10000 whose sampling error was measured: sample less, or replay the whole fleet"},
		{"a sample of a recording", gate.Config{Sample: 10}, gate.Policy{Source: kit.SourceTrace}, nil, "a sample does not apply to a recording, which is replayed whole"},
		{"a spec's checks over the memory limit", gate.Config{Checks: properties.Config{MemoryLimit: 1 << 10}}, gate.Policy{Source: kit.SourceSpec}, nil,
			"properties: checking 1000 devices over 32 attempts would need about 1.7 MiB, above the memory limit of 1.0 KiB: check fewer devices or fewer attempts, or raise the limit"},
		{"a recording's checks wait for its devices", gate.Config{Checks: properties.Config{MemoryLimit: 1 << 10}}, gate.Policy{Source: kit.SourceTrace}, nil, ""},
		{"a recording's devices are its own", gate.Config{Checks: properties.Config{Devices: 100_000}}, gate.Policy{Source: kit.SourceTrace}, nil, "devices does not apply to a recorded trace: its own devices are checked"},
		{"the checks' own seed", gate.Config{Checks: properties.Config{Seed: 7}}, gate.Policy{Source: kit.SourceSpec}, nil, "Checks.Seed is 7: a gate's checks run on its own Seed; set Config.Seed instead"},
		{"the replay's own seed", gate.Config{Seed: 3, Replay: sim.Config{Seed: 7}}, gate.Policy{Source: kit.SourceSpec}, nil, "Replay.Seed is 7: a gate's replay runs on its own Seed; set Config.Seed instead"},
		{"the gate's seed", gate.Config{Seed: 7}, gate.Policy{Source: kit.SourceSpec}, nil, ""},
		{"a recording's part of the fleet is validated", gate.Config{Steps: gate.Replay}, gate.Policy{Source: kit.SourceTrace}, []int{10_000_000_000}, "sim: clients 10000000000 is more than a replay holds (4294967295)"},
		{"a program's replay over the scenario's memory limit", gate.Config{Scenario: sim.Scenario{Clients: 100_000, MemoryLimit: 1 << 20}}, gate.Policy{Source: kit.SourceExec}, nil, "sim: 20 runs of 100,000 clients over 1h0m0s in 1s windows would need about 45.9 MiB, above the memory limit of 1.0 MiB: one run needs 41.1 MiB; replay fewer clients, over a shorter horizon or in wider windows, or raise the limit"},
		{"a spec's replay over the scenario's memory limit", gate.Config{Scenario: sim.Scenario{Clients: 100_000, MemoryLimit: 1 << 20}}, gate.SpecPolicy(kit.Spec{Strategy: kit.Full}), nil, "sim: 20 runs of 100,000 clients over 1h0m0s in 1s windows would need about 7.7 MiB, above the memory limit of 1.0 MiB: one run needs 6.2 MiB; replay fewer clients, over a shorter horizon or in wider windows, or raise the limit"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate(tt.p, tt.sizes...)
		if tt.err == "" {
			assert.NoError(t, err, tt.name)
			continue
		}
		assert.EqualError(t, err, tt.err, tt.name)
		assert.True(t, errors.As(err, new(*gate.InputError)), "%s: %T is an *InputError", tt.name, err)
	}
}

// TestValidateNamed validates what a caller names before opening it: its
// specs, the built-in strategies when it names none, or a program by its
// source, whose estimate is that of any factory.
func TestValidateNamed(t *testing.T) {
	cfg := gate.Config{Scenario: sim.Scenario{Clients: 100_000, MemoryLimit: 20 << 20}}
	assert.NoError(t, cfg.ValidateNamed(kit.SourceSpec, []kit.Spec{{Strategy: kit.Full}}), "a spec's replay fits")
	assert.NoError(t, cfg.ValidateNamed(kit.SourceSpec, nil), "the built-in strategies fit")
	assert.ErrorContains(t, cfg.ValidateNamed(kit.SourceExec, nil), "above the memory limit of 20.0 MiB", "a program's replay does not")
	cfg.Scenario.Clients = 10_000_000_000
	assert.ErrorContains(t, cfg.ValidateNamed(kit.SourceSpec, nil), "clients 10000000000 is more than a replay holds", "each built-in strategy is validated")
}
