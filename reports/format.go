package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A figure is one row of the replay's summary table.
type figure struct {
	key   string // the JSON name
	label string // what a reader calls it
	unit  string // "s" for seconds, "" for counts and ratios
	iv    Interval
}

// summaryFigures lists the summary's figures in the order the tables show
// them.
func summaryFigures(s Summary) []figure {
	return []figure{
		{"all_served_s", "all served after", "s", s.AllServedS},
		{"busiest_window_arrivals", "busiest window (all arrivals)", "", s.BusiestWindowArrivals},
		{"peak_retry_arrivals", "peak retry arrivals per window", "", s.PeakRetryArrivals},
		{"peak_ratio", "peak ratio (retries / accept budget)", "", s.PeakRatio},
		{"attempts", "attempts", "", s.Attempts},
		{"served", "served", "", s.Served},
		{"gave_up", "gave up", "", s.GaveUp},
		{"p50_served_s", "time to success, p50", "s", s.P50ServedS},
		{"p99_served_s", "time to success, p99", "s", s.P99ServedS},
	}
}

// figureLabel returns what a reader calls the figure named key, and its
// unit.
func figureLabel(key string) (label, unit string) {
	for _, f := range summaryFigures(Summary{}) {
		if f.key == key {
			return f.label, f.unit
		}
	}
	return strings.ReplaceAll(key, "_", " "), ""
}

// num formats x for a table: whole numbers with thousands separators, other
// numbers with three significant digits, and no exponent below a billion.
func num(x float64) string {
	switch {
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		return group(strconv.FormatFloat(x, 'f', 0, 64))
	case math.Abs(x) >= 100:
		return group(strconv.FormatFloat(x, 'f', 1, 64))
	case math.Abs(x) >= 1e-4:
		return strconv.FormatFloat(x, 'g', 3, 64)
	default:
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
}

// group puts a comma between each three digits of the integer part of s.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return sign + b.String()
}

// withUnit appends the unit to a formatted number.
func withUnit(s, unit string) string {
	if unit == "" {
		return s
	}
	return s + " " + unit
}

// interval formats a median and its interval as seed tables do:
// "39 [37, 42]".
func interval(iv Interval, unit string) string {
	return withUnit(fmt.Sprintf("%s [%s, %s]", num(iv.Median), num(iv.Low), num(iv.High)), unit)
}

// seconds formats a duration given in seconds, such as "2s" or "0.01s".
func seconds(s float64) string {
	return num(s) + "s"
}

// perSecond formats an accept rate.
func perSecond(r float64) string {
	if r == 0 {
		return "unlimited"
	}
	return num(r) + "/s"
}

// scenarioLine describes a scenario in one line, or returns "" for a report
// without a scenario (the checks alone).
func scenarioLine(s Scenario) string {
	if s == (Scenario{}) {
		return ""
	}
	parts := []string{
		fmt.Sprintf("%s clients", num(float64(s.Clients))),
		fmt.Sprintf("accept rate %s", perSecond(s.AcceptRate)),
	}
	if s.DownS > 0 {
		parts = append(parts, fmt.Sprintf("down %s", seconds(s.DownS)))
	}
	parts = append(parts, fmt.Sprintf("window %s", seconds(s.WindowS)))
	if s.RetryAfterS > 0 {
		parts = append(parts, "Retry-After "+seconds(s.RetryAfterS))
	}
	parts = append(parts, plural(s.Runs, "run"), fmt.Sprintf("threshold %s", num(s.Threshold)))
	name := s.Name
	if name == "" {
		name = "scenario"
	}
	return name + ": " + strings.Join(parts, ", ")
}

// policyLine names a policy with its origin: "full (spec
// full:base=100ms,cap=10s)", "none:base=1s,cap=30s (spec)".
func policyLine(p Policy) string {
	name := p.Name
	switch {
	case name == "" && p.Spec != "":
		name = p.Spec
	case name == "" && p.Command != "":
		name = p.Command
	case name == "":
		name = "(unnamed)"
	}
	var from []string
	if p.Spec != "" && p.Spec != name {
		from = append(from, "spec "+p.Spec)
	}
	if p.Command != "" && p.Command != name {
		from = append(from, "command "+p.Command)
	}
	if len(from) == 0 && p.Source != "" {
		from = append(from, p.Source)
	}
	if len(from) == 0 {
		return name
	}
	return name + " (" + strings.Join(from, ", ") + ")"
}

// ordinal writes 1st, 2nd, 3rd, 4th...
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

// cut shortens a list of n items to ten, and says how many more there are.
func cut(n int) (shown int, more string) {
	if n <= 10 {
		return n, ""
	}
	return 10, fmt.Sprintf("… and %d more", n-10)
}

// nothingToChange says why a report has no advice.
func nothingToChange(r Report) string {
	switch {
	case len(r.Checks) == 0 && r.Replay == nil:
		return "nothing judged: the report holds no checks and no replay"
	case r.Replay == nil:
		return "nothing: the policy passed every check"
	case len(r.Checks) == 0:
		return "nothing: the policy passed the replay"
	}
	return "nothing: the policy passed every check and the replay"
}
