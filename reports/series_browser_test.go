//go:build unix

package reports_test

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/sim"
)

// TestSeriesChartInBrowser checks, in the drawn time-series chart of an
// overload that recovers, that its two panels share the time axis (their
// data areas span the same pixels across), that the retries lie in the
// upper panel and the recovery's label with them, and that the legend lies
// below both panels. It is skipped when no browser is installed.
func TestSeriesChartInBrowser(t *testing.T) {
	browser := findBrowser(t)
	shapes := chartShapes(t, browser, seriesReport(t, sim.Scenario{Kind: sim.Overload, QueueLimit: 50}))["series-chart"]
	require.NotEmpty(t, shapes, "the time-series chart's shapes")
	var areas, retries []shape
	for _, s := range shapes {
		switch s.kind {
		case "area":
			areas = append(areas, s)
		case "retry":
			retries = append(retries, s)
		}
	}
	require.Len(t, areas, 2, "the time-series chart's data areas, one per panel")
	upper, lower := areas[0], areas[1]
	if upper.top > lower.top {
		upper, lower = lower, upper
	}
	t.Logf("upper panel %.0f×%.0f px, lower %.0f×%.0f px", upper.right-upper.left, upper.bottom-upper.top, lower.right-lower.left, lower.bottom-lower.top)
	assert.Greater(t, upper.right-upper.left, 500.0, "the data area's width in px")
	assert.Greater(t, upper.bottom-upper.top, 150.0, "the upper data area's height in px")
	assert.Greater(t, lower.bottom-lower.top, 60.0, "the lower data area's height in px")
	assert.InDelta(t, upper.left, lower.left, 0.6, "the panels' data areas start at the same time")
	assert.InDelta(t, upper.right, lower.right, 0.6, "the panels' data areas end at the same time")
	assert.LessOrEqual(t, upper.bottom, lower.top, "the upper panel's data area lies above the lower's")

	drawn := 0
	for _, r := range retries {
		if r.top >= lower.bottom {
			continue // the legend's swatch
		}
		drawn++
		inside(t, r, upper, "the retries' area")
	}
	assert.Equal(t, 1, drawn, "the retries' areas drawn in the panels")
	legend := false
	for _, s := range shapes {
		if s.kind != "text" {
			continue
		}
		switch {
		case s.rest == "recovered at 40s":
			inside(t, s, upper, "the recovery's label")
		case strings.HasPrefix(s.rest, "queue limit"), s.rest == "retries sent", strings.HasPrefix(s.rest, "dip to"):
			legend = true
			assert.GreaterOrEqual(t, s.top, lower.bottom, "the legend's %q lies below the lower panel", s.rest)
		}
	}
	assert.True(t, legend, "the chart's legend was drawn")
}

// inside checks that s lies within the box of area, to half a pixel.
func inside(t *testing.T, s, area shape, what string) {
	t.Helper()
	assert.True(t, s.left >= area.left-0.5 && s.right <= area.right+0.5 && s.top >= area.top-0.5 && s.bottom <= area.bottom+0.5,
		"%s (%.1f,%.1f)–(%.1f,%.1f) lies outside the data area (%.1f,%.1f)–(%.1f,%.1f)", what, s.left, s.top, s.right, s.bottom, area.left, area.top, area.right, area.bottom)
}

// TestSeriesChartBudgetInBrowser checks, in the drawn time-series chart of
// an overload with a Finagle budget the fleet shares, that the budget's
// panel is a third data area below the other two on the same time axis,
// that the mark of retries allowed again is labelled within it, and that
// its value axis is labelled beside it.
func TestSeriesChartBudgetInBrowser(t *testing.T) {
	browser := findBrowser(t)
	shapes := chartShapes(t, browser, seriesReport(t, sim.Scenario{Kind: sim.Overload, Budget: sim.Budget{Kind: sim.Finagle, Scope: sim.ScopeFleet}}))["series-chart"]
	require.NotEmpty(t, shapes, "the time-series chart's shapes")
	areas := ofKind(shapes, "area")
	require.Len(t, areas, 3, "the time-series chart's data areas, one per panel")
	slices.SortFunc(areas, func(a, b shape) int { return cmp.Compare(a.top, b.top) })
	for i, a := range areas[1:] {
		assert.InDelta(t, areas[0].left, a.left, 0.6, "panel %d's data area starts at the same time as the first's", i+2)
		assert.InDelta(t, areas[0].right, a.right, 0.6, "panel %d's data area ends at the same time as the first's", i+2)
		assert.LessOrEqual(t, areas[i].bottom, a.top, "panel %d's data area lies below the one above it", i+2)
	}
	budget := areas[2]
	assert.Greater(t, budget.bottom-budget.top, 60.0, "the budget panel's data area's height in px")
	labelled, axis := false, false
	for _, s := range shapes {
		if s.kind != "text" {
			continue
		}
		switch {
		case strings.HasPrefix(s.rest, "retries allowed again at "):
			labelled = true
			inside(t, s, budget, "the label of retries allowed again")
		case s.rest == "retries available":
			axis = true
			assert.LessOrEqual(t, s.right, budget.left+0.5, "the budget's axis label lies left of its panel")
			assert.True(t, s.top >= budget.top-10 && s.bottom <= budget.bottom+10, "the budget's axis label lies beside its panel")
		}
	}
	assert.True(t, labelled, "the mark of retries allowed again was labelled")
	assert.True(t, axis, "the budget's value axis was labelled")
}
