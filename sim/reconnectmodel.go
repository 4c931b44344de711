package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// reconnectModel is the model of Reconnect: every device loses its
// session at t0 and reconnects to a broker that is down, then warms up,
// judged on whether the fleet recovers. Its engine is reconnectEngine.
type reconnectModel struct{ serverBase }

func (reconnectModel) kind() Kind { return Reconnect }

// reconnectLabels are what a reconnect calls the figures that name
// devices: its servings are connections and its attempts connects.
var reconnectLabels = map[Figure]string{
	Served:    "devices connected",
	AllServed: "last device connected, from t=0",
	Pending:   "devices still reconnecting at the horizon",
	Attempts:  "connects sent",
}

func (reconnectModel) label(f Figure) string { return reconnectLabels[f] }

func (reconnectModel) describe(s Scenario) []string {
	parts := []string{"down " + prose.FormatDuration(s.Down), prose.Number(s.CPU) + " CPU units/s, handshakes of " + prose.Number(s.Handshake) + ", warm-up " + prose.Number(s.WarmUp)}
	if s.RefuseCold {
		parts = append(parts, "refuses until warm")
	} else {
		parts = append(parts, "drops cold sessions after "+prose.FormatDuration(s.ColdDrop), "on a drop: "+string(s.OnDrop))
	}
	parts = append(parts, s.Budget.held()...)
	return append(parts, "round trip "+prose.FormatDuration(s.RTT), "horizon "+prose.FormatDuration(s.Horizon))
}

// findings: a budget that slows the recovery; else, in a failing
// replay, devices that keep the broker cold, or a broker too small.
func (reconnectModel) findings(r Result, failed bool) []string {
	if text := budgetSlows(r, failed); text != "" {
		return []string{text}
	}
	if !failed {
		return nil
	}
	s := r.Scenario
	dropped := r.Summary[SessionsDropped].Median
	switch {
	case s.OnDrop != DropContinue && !s.RefuseCold && dropped > 0:
		when := "at once"
		if s.OnDrop == DropResetJitter {
			when = "within their first delay"
		}
		return []string{fmt.Sprintf("The devices keep the broker cold: it drops every session it accepts until it has warmed up on CPU left over, and devices that reset their backoff on a connect (--on-drop %s) reconnect %s, so that handshakes take the CPU the warm-up needs (%s sessions accepted and dropped, median over the runs).",
			s.OnDrop, when, prose.Number(dropped))}
	case dropped > 0:
		return []string{fmt.Sprintf("%s: the broker accepted and dropped %s sessions while cold, since the devices' connects take the CPU its warm-up of %s units needs; a backoff whose delays grow longer, with jitter, leaves it that CPU, as does refusing until warm.",
			unserved(r, "devices were", "not connected"), prose.Number(dropped), prose.Number(s.WarmUp))}
	}
	return []string{fmt.Sprintf("%s: the broker's %s CPU units a second, %s a handshake, connect at most %s; lengthen the backoff or give the broker more capacity.",
		unserved(r, "devices were", "not connected"), prose.Number(s.CPU), prose.Number(s.Handshake), prose.PerSecond(s.CPU/s.Handshake))}
}

// changes: the devices' reset rule (a drop after the connect counted as a
// failure, or a reset followed by a jittered wait), or the broker's
// refusing until it is warm. A broker that refuses until it is warm drops
// no session: no rule for a drop changes anything.
func (reconnectModel) changes(s Scenario) []ServerChange {
	if s.RefuseCold {
		return nil
	}
	var out []ServerChange
	if s.OnDrop != DropContinue {
		out = append(out, ServerChange{
			"count a session the broker drops right after accepting it as a failed connect, so that the devices' backoff goes on growing instead of resetting: the fix is the reset rule",
			"--on-drop continue",
			SideReset,
			func(s *Scenario) { s.OnDrop = DropContinue }})
	}
	if s.OnDrop == DropReset {
		out = append(out, ServerChange{
			"after a drop, reset the backoff but wait a random share of its first delay before reconnecting",
			"--on-drop reset-jitter",
			SideReset,
			func(s *Scenario) { s.OnDrop = DropResetJitter }})
	}
	return append(out, ServerChange{
		"have the broker refuse connects until it is warm instead of accepting and dropping them",
		"--refuse-cold",
		SideServer,
		func(s *Scenario) { s.RefuseCold = true }})
}

func (reconnectModel) tried(s Scenario) []string {
	if s.RefuseCold {
		return nil
	}
	return []string{"counting a drop as a failure", "refusing until warm"}
}

// found: a recovery, unless devices were not connected by the horizon.
func (reconnectModel) found(r Result) string {
	s := r.Scenario
	short := ""
	if served := r.Summary[Served].Median; served < float64(s.Clients) {
		short = fmt.Sprintf("%s of %s devices were not connected by the replay's %s horizon", prose.Number(float64(s.Clients)-served), prose.Number(float64(s.Clients)), prose.FormatDuration(s.Horizon))
	}
	return recoveryFound(r, short)
}

func (reconnectModel) terms(r Result) [][2]string {
	return recoveryTerms(r, "the broker's first "+prose.FormatDuration(r.Scenario.Down)+" down")
}

func (reconnectModel) seriesChart(s Scenario) SeriesChart {
	return SeriesChart{
		First: "first connects sent", Retries: "reconnects sent", Successes: "devices connected", Failures: "connects refused or dropped",
		Capacity: "broker capacity (handshakes/s)", Jobs: "sessions open", JobsAxis: "sessions open",
		To: s.Down.Seconds(), RampTo: s.Down.Seconds(),
		Trigger: fmt.Sprintf("broker down (first %s)", prose.FormatDuration(s.Down)),
		End:     "the broker's return",
	}
}

func (reconnectModel) runHeads() []string {
	return []string{"Recovered", "Recovered, from the broker's return (s)", "Connected (devices)", "All connected, from t=0 (s)", "Accepted", "Dropped", "Broker warm, from t=0 (s)", "Connects", "Peak ratio"}
}

func (reconnectModel) runCells(s Scenario, run Run) []string {
	all, warm := "–", "–"
	if run.Served == s.Clients {
		all = prose.Number(run.AllServed.Seconds())
	}
	if run.Warm {
		warm = prose.Number(run.WarmAt.Seconds())
	}
	return append(recoveredCells(run), prose.Number(float64(run.Served)), all, prose.Number(float64(run.Accepted)), prose.Number(float64(run.Dropped)), warm, prose.Number(float64(run.Attempts)), prose.Number(run.PeakRatio))
}
func (reconnectModel) recovers() bool { return true }

func (reconnectModel) defaults(s Scenario) Scenario {
	if len(s.IDs) == 0 {
		def(&s.Clients, defaultReconnectClients)
	}
	def(&s.RTT, defaultReconnectRTT)
	def(&s.Down, defaultReconnectDown)
	def(&s.CPU, defaultCPU)
	def(&s.Handshake, defaultHandshake)
	def(&s.WarmUp, defaultWarmUp)
	def(&s.ColdDrop, defaultColdDrop)
	def(&s.Horizon, defaultModelHorizon)
	def(&s.AcceptRate, s.CPU/s.Handshake)
	def(&s.OnDrop, DropReset)
	s.Budget = s.Budget.WithDefaults()
	def(&s.AcceptRate, defaultAcceptRate)
	def(&s.StartSpread, defaultStartSpread)
	def(&s.Threshold, defaultThreshold)
	def(&s.MaxAttempts, defaultMaxAttempts)
	return s
}

func (reconnectModel) takes(field string) bool {
	switch field {
	case "on-drop", "refuse-cold", "cpu", "handshake", "warm-up", "cold-drop", "down", "start-spread", "max-attempts":
		return true
	}
	return slices.Contains(serverFields, field)
}

func (reconnectModel) parts(s, d Scenario) []FleetPart {
	if s.CPU == 0 {
		return []FleetPart{{"cpu", fmt.Sprintf("cpu %g units/s", d.CPU)}}
	}
	return nil
}

func (reconnectModel) servesAll() bool { return true }

func (reconnectModel) unjudged(r Result) string {
	why, _ := recoveryUnjudged(r)
	return why
}

func (reconnectModel) ended() string { return "the broker's return" }

func (reconnectModel) amplification(Result, *strings.Builder) {}

// stateAtEnd writes the devices served, the sessions and the warm-up.
func (reconnectModel) stateAtEnd(r Result, b *strings.Builder) {
	s, sum := r.Scenario, r.Summary
	fmt.Fprintf(b, "; %s of %s devices served", count(sum[Served].Median), count(float64(s.Clients)))
	if sum[Served].Median >= float64(s.Clients) {
		fmt.Fprintf(b, ", all %s from t=0", seconds(sum[AllServed].Median))
	}
	fmt.Fprintf(b, "; %s sessions accepted, %s dropped cold", count(sum[SessionsAccepted].Median), count(sum[SessionsDropped].Median))
	if w := sum[WarmUpTime].Median; w < s.Horizon.Seconds() {
		fmt.Fprintf(b, "; broker warm %s from t=0", seconds(w))
	} else {
		b.WriteString("; the broker never warmed up")
	}
}

func (reconnectModel) validate(s Scenario) error {
	if err := validateServer(s); err != nil {
		return err
	}
	if s.Clients < 1 || s.Clients > maxReconnectDevices {
		return invalid("clients %d is not between 1 and %s", s.Clients, prose.FormatCount(maxReconnectDevices))
	}
	if err := firstError(
		durationWithin("rtt", s.RTT, maxHorizon, ""),
		durationWithin("cold-drop", s.ColdDrop, maxHorizon, ""),
		durationWithin("start-spread", s.StartSpread, s.Horizon, "the horizon "),
	); err != nil {
		return err
	}
	return s.validateReconnect()
}

func (s Scenario) validateReconnect() error {
	window := recoveryWindow * time.Second
	switch {
	case !(s.CPU >= 1 && s.CPU <= maxReconnectUnits) || s.CPU != math.Trunc(s.CPU):
		return invalid("cpu %v units a second is not a whole number from 1 to 1e12", s.CPU)
	case !(s.Handshake >= 1 && s.Handshake <= maxReconnectUnits) || s.Handshake != math.Trunc(s.Handshake):
		return invalid("handshake %v units is not a whole number from 1 to 1e12", s.Handshake)
	case !(s.WarmUp >= 0 && s.WarmUp <= maxReconnectUnits) || s.WarmUp != math.Trunc(s.WarmUp):
		return invalid("warm-up %v units is not a whole number from 0 to 1e12", s.WarmUp)
	case s.ColdDrop < 0:
		return invalid("cold-drop %v is negative", s.ColdDrop)
	case s.RTT < 0:
		return invalid("rtt %v is negative", s.RTT)
	case s.Down < 0:
		return invalid("down %v is negative", s.Down)
	case s.StartSpread < 0:
		return invalid("start-spread %v is negative", s.StartSpread)
	case s.AcceptRate != s.CPU/s.Handshake:
		return invalid("accept-rate %v is not the broker's handshakes a second, cpu over handshake (%v): set cpu and handshake instead", s.AcceptRate, s.CPU/s.Handshake)
	case !slices.Contains(DropRules(), s.OnDrop):
		return invalid("unknown on-drop %q (want reset, reset-jitter or continue)", string(s.OnDrop))
	case s.Down > s.Horizon-window:
		return invalid("down %v ends less than %v before the %v horizon: recovery could not be judged", s.Down, window, s.Horizon)
	case s.CPU < s.Handshake:
		return invalid("cpu %v units a second is less than one handshake of %v units: the broker could accept no connect", s.CPU, s.Handshake)
	case s.RTT >= s.Horizon-s.recoveryStart()-window:
		return invalid("rtt %v is not shorter than the %v from the broker's return to the last recovery window: no device could connect in time to judge recovery", s.RTT, s.Horizon-s.recoveryStart()-window)
	case s.ColdDrop >= s.Horizon-s.recoveryStart():
		return invalid("cold-drop %v is not shorter than the %v from the broker's return to the horizon: no session accepted cold would be dropped within the replay", s.ColdDrop, s.Horizon-s.recoveryStart())
	}
	if err := s.Budget.validate(); err != nil {
		return err
	}
	return s.reconnect().validate()
}

// memory is what a run holds ahead, and as much again for what grows
// with its events (see budget.room): its devices and the sends' calendar,
// its ring of bucket headers and one partly filled chunk in each second
// that holds a send.
func (reconnectModel) memory(s Scenario) int64 {
	n := int64(max(s.Clients, len(s.IDs)))
	cal := add(runBytes, mul(min(n, ringSize)*calendarChunk(int(n)), 8))
	return 2 * add(mul(n, modelDeviceBytes+reconnectDeviceBytes+24), cal, s.budgetBytes(int64(s.Clients)*max(int64(s.MaxAttempts), 1)), serverSeries(s))
}

// newEngine returns the engine of a Reconnect's runs.
func (reconnectModel) newEngine(s Scenario, f kit.Factory, room int64) (modelEngine, error) {
	c := s.reconnect()
	c.room = room
	e, err := newReconnectEngine(c, f)
	if err != nil {
		return nil, err
	}
	return reconnectRunner{e, s}, nil
}

// reconnect returns the reconnect model of s, after defaults.
func (s Scenario) reconnect() reconnect {
	rule := dropReset
	switch s.OnDrop {
	case DropResetJitter:
		rule = dropResetJitter
	case DropContinue:
		rule = dropContinue
	}
	return reconnect{
		Devices:     s.Clients,
		Spread:      s.StartSpread,
		RTT:         s.RTT,
		Down:        s.Down,
		CPU:         int64(s.CPU),
		Handshake:   int64(s.Handshake),
		Refusal:     1,
		WarmUp:      int64(s.WarmUp),
		ColdDrop:    s.ColdDrop,
		RefuseCold:  s.RefuseCold,
		OnDrop:      rule,
		MaxAttempts: s.MaxAttempts,
		Horizon:     s.Horizon,
		Budget:      s.Budget,
		ids:         s.IDs,
	}
}

type reconnectRunner struct {
	e *reconnectEngine
	s Scenario
}

func (m reconnectRunner) run(i int, seed uint64) (Run, error) {
	r, err := m.e.replay(i, seed)
	if err != nil {
		return Run{}, err
	}
	out := Run{
		Seed:            r.Seed,
		AllServed:       r.AllServed,
		Attempts:        r.Attempts,
		Served:          r.Served,
		GaveUp:          r.GaveUp,
		AttemptLimited:  r.AtLimit,
		Pending:         r.Devices - r.Served - r.GaveUp,
		Accepted:        r.Accepted,
		Dropped:         r.Dropped,
		Refused:         r.Refused,
		Warm:            r.WarmAt >= 0,
		WarmAt:          max(r.WarmAt, 0),
		Amplification:   r.Amplification,
		Goodput:         r.GoodputAfterTrigger,
		BudgetRefused:   r.BudgetRefused,
		BudgetThrottled: r.Throttled,
	}
	out.setSeries(m.s, r.Series, r.Recovery, r.RecoveredAt)
	return out, nil
}
