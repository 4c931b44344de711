package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// randomBudgetSpec draws a budget spec of any kind, or of none, with keys
// of its own kind and now and then of another, each value around its
// default and limits, valid or not.
func randomBudgetSpec(r *rand.Rand) string {
	kinds := []string{"finagle", "envoy", "grpc", "aws", "aws2026", "adaptive", "breaker", "bogus"}
	values := map[string][]string{
		"percent":       {"20%", "0.5", "1000%", "11", "0.001"},
		"min":           {"1", "3", "10", "2000000"},
		"ttl":           {"1s", "10s", "2h"},
		"tokens":        {"1", "10", "500", "2e9"},
		"ratio":         {"0.1", "1", "5"},
		"cost":          {"1", "5", "14", "600"},
		"timeout-cost":  {"1", "10"},
		"throttle-cost": {"1", "5"},
		"increment":     {"1", "0.5", "20"},
		"k":             {"0.5", "1", "2", "3"},
		"window":        {"1s", "2m", "2h"},
		"failures":      {"1", "3", "5"},
		"of":            {"1", "2", "10"},
		"delay":         {"1s", "1m", "2h"},
		"successes":     {"1", "2", "4"},
		"probes":        {"1", "3", "5"},
	}
	var keys []string
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	kind := kinds[r.IntN(len(kinds))]
	own, _ := budgetKeys(BudgetKind(kind))
	var parts []string
	for range r.IntN(4) {
		key := keys[r.IntN(len(keys))]
		if len(own) > 0 && r.IntN(5) != 0 {
			key = own[r.IntN(len(own))]
		}
		vs := values[key]
		parts = append(parts, key+"="+vs[r.IntN(len(vs))])
	}
	if len(parts) == 0 {
		return kind
	}
	return kind + ":" + strings.Join(parts, ",")
}

// The parsing, defaults, refusals, descriptions, warnings and memory of
// thousands of random budgets hash to a recorded digest: a change to how
// a budget parses, defaults, validates, describes or warns shows here.
func TestBudgetDigest(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	h := sha256.New()
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 11))
		spec := randomBudgetSpec(r)
		b, err := ParseBudget(spec)
		fmt.Fprintf(h, "%d %s %v\n", i, spec, err)
		if err != nil {
			continue
		}
		if r.IntN(3) == 0 {
			b.Scope = ScopeFleet
		}
		d := b.WithDefaults()
		fmt.Fprintf(h, "%s %+v %v\n%s\n", b, d, d.validate(), b.Describe(1+r.IntN(5000)))
		s := Scenario{Kind: Overload, Budget: b, Clients: []int{0, 1, 50, 5000}[r.IntN(4)],
			Rate: []float64{0, 10, 90}[r.IntN(3)], Timeout: []time.Duration{0, 50 * time.Millisecond}[r.IntN(2)]}
		if r.IntN(4) == 0 {
			s.Kind = Reconnect
			s.Rate, s.Timeout = 0, 0
		}
		err = s.validateFields()
		fmt.Fprintf(h, "%v %q %q\n", err, s.BudgetWarning(BudgetNeverBinds), s.BudgetWarning(BudgetNoHeadroom))
		if err == nil {
			w := s.WithDefaults()
			fmt.Fprintf(h, "%d %d\n", w.budgetBytes(1000), w.budgetBytes(1_000_000))
		}
	}
	got := hex.EncodeToString(h.Sum(nil)) + "\n"
	kittest.Golden(t, filepath.Join("testdata", "budget-digest", strconv.Itoa(n)+".sha256"), []byte(got))
}
