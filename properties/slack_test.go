package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestClusterSlackCoversDecorrelatedDependence computes, for decorrelated
// jitter (base 100ms, factor 3, cap 10s) rounded to whole milliseconds, the
// exact chance that two independent devices share their first three delays,
// and the chance the clusters check assumes: the product of the chances of
// sharing each delay. The delays of one device depend on each other, so the
// first is larger; ClusterSlack must cover the ratio.
func TestClusterSlackCoversDecorrelatedDependence(t *testing.T) {
	const base, capMS = 100, 10000
	hi := func(prev int) int { return min(3*prev, capMS) } // delays lie in [base, hi)
	var joint float64
	m2 := make([]float64, capMS+1)
	m3 := make([]float64, capMS+1)
	p1 := 1.0 / float64(hi(base)-base)
	for d1 := base; d1 < hi(base); d1++ {
		n2 := float64(hi(d1) - base)
		for d2 := base; d2 < hi(d1); d2++ {
			n3 := float64(hi(d2) - base)
			// P(both draw d1) · P(both draw d2 | d1) · P(both draw the same d3 | d2)
			joint += p1 * p1 / (n2 * n2) / n3
			m2[d2] += p1 / n2
			for d3 := base; d3 < hi(d2); d3++ {
				m3[d3] += p1 / n2 / n3
			}
		}
	}
	q1 := p1 * p1 * float64(hi(base)-base)
	var q2, q3 float64
	for v := range m2 {
		q2 += m2[v] * m2[v]
		q3 += m3[v] * m3[v]
	}
	product := q1 * q2 * q3
	ratio := joint / product
	t.Logf("P(same first three delays) = %.3g; product of per-attempt chances = %.3g; ratio %.2f", joint, product, ratio)
	slack := DefaultThresholds().ClusterSlack
	assert.LessOrEqual(t, ratio, slack/2, "dependence raises the chance %.2f×; ClusterSlack %g must leave a factor 2 of margin", ratio, slack)
}
