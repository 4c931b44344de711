package main

import (
	"slices"
	"strings"
	"testing"
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
		if got := splitSpecs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("splitSpecs(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestFlagForms parses the forms a flag may take, and a list of policies.
func TestFlagForms(t *testing.T) {
	o := &options{command: "compare"}
	err := parseFlags("compare", []string{"--policy=none:base=1s,cap=30s,full", "-policy", "equal", "--clients", "1000,10_000", "--clients=100000", "--down=1m30s"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"none:base=1s,cap=30s", "full", "equal"}; !slices.Equal(o.policies, want) {
		t.Errorf("policies = %q; want %q", o.policies, want)
	}
	if want := []int{1000, 10000, 100000}; !slices.Equal(o.clients, want) {
		t.Errorf("clients = %v; want %v", o.clients, want)
	}
	if o.down.String() != "1m30s" {
		t.Errorf("down = %v; want 1m30s", o.down)
	}
	o = &options{command: "check"}
	if err := parseFlags("check", []string{"--policy", "full", "--require-reproducible"}, o); err != nil || !o.requireReproducible {
		t.Errorf("--require-reproducible: %v, %v", o.requireReproducible, err)
	}
	o = &options{command: "check"}
	if err := parseFlags("check", []string{"--policy", "full", "--require-reproducible=false", "--", "x"}, o); err == nil || !strings.Contains(err.Error(), `takes no arguments, got "x"`) {
		t.Errorf("-- x: %v", err)
	}
}

// TestConfigOverride checks that the command line wins over the config, and
// that a config key for another command is read but not used.
func TestConfigOverride(t *testing.T) {
	o := &options{command: "check"}
	if err := parseFlags("check", []string{"--devices", "2000"}, o); err != nil {
		t.Fatal(err)
	}
	cfg := "policy: equal:base=1s,cap=60s\ndevices: 5000\nmin-cv: 0.2\nclients: 50000\ndown: 60s\n"
	if err := readConfig(strings.NewReader(cfg), "ci.yaml", "check", o); err != nil {
		t.Fatal(err)
	}
	if o.devices != 2000 || o.minCV != 0.2 || !slices.Equal(o.policies, []string{"equal:base=1s,cap=60s"}) {
		t.Errorf("devices %d, min-cv %v, policies %q; want 2000 (the flag), 0.2, the config's policy", o.devices, o.minCV, o.policies)
	}
	if o.clients != nil || o.down != 0 {
		t.Errorf("check took the replay's keys: clients %v, down %v", o.clients, o.down)
	}
	o = &options{command: "gate", given: map[string]bool{}}
	err := readConfig(strings.NewReader("policy: full\nclients: [400, 800]\nscenario:\n"), "ci.yaml", "gate", o)
	if err == nil || err.Error() != "ci.yaml:3: scenario: want a single value" {
		t.Errorf("empty value: %v", err)
	}
}

// TestSplitSpecsIsLinear splits a list of 200,000 key=value pairs, which a
// split that grows one string by concatenation takes quadratic time over.
func TestSplitSpecsIsLinear(t *testing.T) {
	v := "full:" + strings.Repeat("base=1s,", 200_000) + "cap=2s"
	allocs := testing.AllocsPerRun(1, func() { splitSpecs(v) })
	if got := splitSpecs(v); len(got) != 1 || len(got[0]) != len(v) {
		t.Fatalf("splitSpecs gave %d specs", len(got))
	}
	// Linear: a few allocations per part at most, not one string per part
	// grown to the whole length.
	if allocs > 100 {
		t.Errorf("splitSpecs made %.0f allocations for one spec of 200,000 parts; want a few", allocs)
	}
}
