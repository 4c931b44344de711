package reports_test

import (
	"context"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// TestAddChecks carries the checks of a policy without jitter into a
// report: statuses, figures, the counterexample in seconds, early delays.
func TestAddChecks(t *testing.T) {
	f := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}.Factory()
	out, err := properties.Run(context.Background(), f, properties.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var r reports.Report
	r.AddChecks(out)
	if len(r.Checks) != len(out.Results) {
		t.Fatalf("%d checks; want %d", len(r.Checks), len(out.Results))
	}
	spread := r.Checks[0]
	if spread.Name != properties.NameSpread || spread.Status != verdict.Fail || spread.Figure != 0 {
		t.Errorf("spread = %s %s figure %v; want spread fail figure 0", spread.Name, spread.Status, spread.Figure)
	}
	if x := spread.Counterexample; x == nil || len(x.Devices) == 0 || x.Devices[0].DelaysS[0] != 1 {
		t.Errorf("spread's counterexample = %+v; want devices whose first delay is 1 s", x)
	}
	if len(r.EarlyDelays) != 3 || r.EarlyDelays[2].Attempt != 3 || r.EarlyDelays[2].DelaysS[0] != 4 {
		t.Errorf("early delays = %d attempts; want 3, the third of 4 s", len(r.EarlyDelays))
	}
}

// TestAddReplay carries the lab's replay without jitter into a report: the
// scenario after its defaults, the published figures, the histogram.
func TestAddReplay(t *testing.T) {
	f := kit.Spec{Strategy: kit.None, Base: 100 * time.Millisecond, Cap: 10 * time.Second}.Factory()
	res, err := sim.Replay(context.Background(), f, sim.Scenario{}, sim.Config{Runs: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var r reports.Report
	r.AddReplay(res)
	want := reports.Scenario{Name: "outage", Clients: 400, AcceptRate: 50, DownS: 2, WindowS: 1, StartSpreadS: 0.01, HorizonS: 3600, Runs: 3, Threshold: 0.6}
	if r.Scenario != want {
		t.Errorf("scenario = %+v; want %+v", r.Scenario, want)
	}
	p := r.Replay
	if p.Status != verdict.Fail || len(p.Runs) != 3 || p.Summary.AllServedS.Median != res.Summary["all_served_s"].Median || p.Summary.Attempts.Median != 3800 {
		t.Errorf("replay = %s, %d runs, all served %v, attempts %v; want fail, 3 runs, the result's figures, 3800 attempts",
			p.Status, len(p.Runs), p.Summary.AllServedS.Median, p.Summary.Attempts.Median)
	}
	if h := p.Histogram; h.Budget != 50 || h.Threshold != 30 || len(h.Arrivals) == 0 || h.Arrivals[0] != 1600 {
		t.Errorf("histogram budget %v threshold %v arrivals %v; want 50, 30, 1600 in the first window", h.Budget, h.Threshold, h.Arrivals)
	}
}
