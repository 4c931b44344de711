package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/internal/cli"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// FuzzFlags parses command lines of replay, gate and compare as the CLI
// does, and replays every one it accepts on a small fleet: no accepted value
// may reach a panic, an error of the replay or a figure a report refuses.
// Every value but the fleet's size, the runs and the horizon is replayed as
// given; those three are cut down so that one case stays fast.
func FuzzFlags(f *testing.F) {
	for _, line := range []string{
		"replay --policy full",
		"replay --policy full --accept-rate 1e-200",
		"replay --policy full --threshold 1e307",
		"replay --policy none:base=300s,cap=300s --clients 1 --down 744h --horizon 744h --window 10ms --runs 3",
		"replay --policy full:base=100ms,cap=10s --window 1ns --horizon 400ms --runs 3",
		"replay --policy full --clients 1 --runs 1000000",
		"gate --policy decorrelated:base=15s,cap=5m --scenario long-outage --window 20ms",
		"compare --scenario storm --clients 1000,10000 --runs 3",
		"replay --policy equal --scenario periodic-aligned --start-spread 1ns --accept-rate 0.001",
		"replay --policy full --retry-after 1ns --down 1ns",
	} {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) == 0 {
			return
		}
		command := args[0]
		switch command {
		case "replay", "gate", "compare":
		default:
			return
		}
		for _, a := range args {
			// No programs, files or reports: the fuzz replays specs only.
			for _, flag := range []string{"exec", "trace", "config", "report", "json"} {
				if strings.TrimLeft(a, "-") == flag || strings.HasPrefix(strings.TrimLeft(a, "-"), flag+"=") {
					return
				}
			}
		}
		o, err := parseCommand(context.Background(), command, args[1:])
		if errors.Is(err, cli.ErrHelp) {
			return
		}
		if err != nil {
			require.Equal(t, exitUsage, exitCode(err, &bytes.Buffer{}), "%q: exit code for a refused command line (%v)", line, err)
			return
		}
		policies := o.specs
		if len(policies) == 0 {
			policies = []kit.Spec{{Strategy: kit.Full}}
		}
		cfg := o.cfg.Replay
		cfg.Runs = min(cfg.WithDefaults().Runs, 3)
		cfg.RepresentativeOnly = true
		for _, n := range o.clients {
			s := o.cfg.Scenario
			if n > 0 {
				s.Clients = n
			}
			s.Clients = min(s.WithDefaults().Clients, 50)
			if h := s.WithDefaults().Horizon; h > time.Hour {
				s.Horizon = time.Hour
			}
			for _, spec := range policies {
				if s.Validate(spec.Factory(), cfg) != nil {
					return // cut down, the scenario no longer holds together
				}
				res, err := sim.Replay(context.Background(), spec.Factory(), s, cfg)
				require.NoError(t, err, "%q: replay of %s", line, spec)
				for name, e := range res.Summary {
					for _, x := range []float64{e.Median, e.Low, e.High} {
						require.False(t, math.IsNaN(x) || math.IsInf(x, 0), "%q: %s: %s = %v", line, spec, name, x)
					}
				}
				var r reports.Report
				r.AddReplay(res)
				require.NoError(t, reports.WriteText(&bytes.Buffer{}, r), "%q: the report refuses the replay", line)
			}
		}
	})
}
