package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Every scenario either takes a field, as its flag sets it, or refuses
// it naming it: none replays as if it were not set. The table says which
// kinds take each; a value other than the kinds' defaults stands for a
// user's choice.
func TestEveryKindTakesOrRefusesEachField(t *testing.T) {
	fleet := "outage long-outage storm periodic periodic-aligned"
	fields := []struct {
		name  string
		set   func(*Scenario)
		takes string // the kinds that take it, space-separated
	}{
		{"threshold", func(s *Scenario) { s.Threshold = 0.7 }, fleet},
		{"rate", func(s *Scenario) { s.Rate = 5 }, "overload"},
		{"rtt", func(s *Scenario) { s.RTT = time.Millisecond }, "overload reconnect"},
		{"timeout", func(s *Scenario) { s.Timeout = time.Second }, "overload"},
		{"dip-for", func(s *Scenario) { s.DipFor = time.Second }, "overload"},
		{"queue-limit", func(s *Scenario) { s.QueueLimit = 10 }, "overload"},
		{"on-drop", func(s *Scenario) { s.OnDrop = DropContinue }, "reconnect"},
		{"cpu", func(s *Scenario) { s.CPU = 100 }, "reconnect"},
		{"latency", func(s *Scenario) { s.Latency = time.Millisecond }, "contention"},
		{"window", func(s *Scenario) { s.Window = 2 * time.Second }, fleet},
		{"burst", func(s *Scenario) { s.Burst, s.Server = 5, TokenBucket }, fleet},
		{"period", func(s *Scenario) { s.Period = time.Minute }, "periodic periodic-aligned"},
		{"down", func(s *Scenario) { s.Down = time.Second }, fleet + " reconnect"},
		{"start-spread", func(s *Scenario) { s.StartSpread = time.Second }, fleet + " reconnect"},
		{"accept-rate", func(s *Scenario) { s.AcceptRate = 10 }, fleet + " overload reconnect"},
		{"retries", func(s *Scenario) { s.Retries = 3 }, "storm overload"},
		{"max-attempts", func(s *Scenario) { s.MaxAttempts = 5 }, fleet + " reconnect"},
	}
	for _, k := range Kinds() {
		for _, f := range fields {
			s := Scenario{Kind: k}
			f.set(&s)
			err := s.modelFieldsApply()
			if strings.Contains(" "+f.takes+" ", " "+string(k)+" ") {
				assert.NoError(t, err, "%s on %s", f.name, k)
				continue
			}
			if assert.Error(t, err, "%s on %s: taken and ignored", f.name, k) {
				assert.Contains(t, err.Error(), f.name, "%s on %s: the refusal names it", f.name, k)
			}
		}
	}
}
