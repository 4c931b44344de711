package sim

// A Figure names one figure of a run, as the replay's JSON names it. The
// summary of a replay holds the median and interval of each.
type Figure string

// The figures of a run.
const (
	// AllServed is when the last device was served, in seconds.
	AllServed Figure = "all_served_s"
	// BusiestWindowArrivals is the most arrivals in one window, first
	// attempts included.
	BusiestWindowArrivals Figure = "busiest_window_arrivals"
	// PeakRetryArrivals is the most retry arrivals in one window.
	PeakRetryArrivals Figure = "peak_retry_arrivals"
	// PeakRatio is PeakRetryArrivals over the window's accept budget: the
	// figure a replay is judged by.
	PeakRatio Figure = "peak_ratio"
	// Attempts counts every attempt, first ones included.
	Attempts Figure = "attempts"
	// AttemptsPerDevice is Attempts over the fleet's size.
	AttemptsPerDevice Figure = "attempts_per_device"
	// Served counts the devices (or firings) served.
	Served Figure = "served"
	// GaveUp counts the devices (or firings) whose retries stopped first.
	GaveUp Figure = "gave_up"
	// Pending counts the devices still retrying at the horizon.
	Pending Figure = "pending"
	// P50Served and P99Served are the median and 99th percentile of the
	// time to success, in seconds.
	P50Served Figure = "p50_served_s"
	P99Served Figure = "p99_served_s"
)

// figureInfo is what the package knows of each figure: how to read it
// from a run, what a reader calls it, and its unit.
var figureInfo = []struct {
	f     Figure
	label string
	unit  string // "s" for seconds; "" for counts and ratios
	value func(Run, Scenario) float64
}{
	{AllServed, "all served after", "s", func(r Run, _ Scenario) float64 { return r.AllServed.Seconds() }},
	{BusiestWindowArrivals, "busiest window (all arrivals)", "", func(r Run, _ Scenario) float64 { return float64(r.BusiestWindowArrivals) }},
	{PeakRetryArrivals, "peak retry arrivals per window", "", func(r Run, _ Scenario) float64 { return float64(r.PeakRetryArrivals) }},
	{PeakRatio, "peak ratio (retries / accept budget)", "", func(r Run, _ Scenario) float64 { return r.PeakRatio }},
	{Attempts, "attempts", "", func(r Run, _ Scenario) float64 { return float64(r.Attempts) }},
	{AttemptsPerDevice, "attempts per device", "", func(r Run, s Scenario) float64 { return float64(r.Attempts) / float64(s.Clients) }},
	{Served, "served", "", func(r Run, _ Scenario) float64 { return float64(r.Served) }},
	{GaveUp, "gave up", "", func(r Run, _ Scenario) float64 { return float64(r.GaveUp) }},
	{Pending, "still retrying at the horizon", "", func(r Run, _ Scenario) float64 { return float64(r.Pending) }},
	{P50Served, "time to success, p50", "s", func(r Run, _ Scenario) float64 { return r.P50.Seconds() }},
	{P99Served, "time to success, p99", "s", func(r Run, _ Scenario) float64 { return r.P99.Seconds() }},
}

// Figures returns every figure, in the order the summary lists them.
func Figures() []Figure {
	out := make([]Figure, len(figureInfo))
	for i, f := range figureInfo {
		out[i] = f.f
	}
	return out
}

// lookup returns where figureInfo holds f, or -1.
func (f Figure) lookup() int {
	for i := range figureInfo {
		if figureInfo[i].f == f {
			return i
		}
	}
	return -1
}

// Label returns what a reader calls the figure, such as "all served
// after"; an unknown figure is called by its name.
func (f Figure) Label() string {
	if i := f.lookup(); i >= 0 {
		return figureInfo[i].label
	}
	return string(f)
}

// Unit returns the figure's unit: "s" for seconds, "" for counts and
// ratios.
func (f Figure) Unit() string {
	if i := f.lookup(); i >= 0 {
		return figureInfo[i].unit
	}
	return ""
}

// Of returns the figure's value in run r of scenario s (after defaults).
// It panics on an unknown figure.
func (f Figure) Of(r Run, s Scenario) float64 {
	i := f.lookup()
	if i < 0 {
		panic("sim: unknown figure " + string(f))
	}
	return figureInfo[i].value(r, s)
}
