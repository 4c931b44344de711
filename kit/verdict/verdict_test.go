package verdict

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCombine(t *testing.T) {
	tests := []struct {
		parts      []Status
		want, gate Status
	}{
		{nil, Inconclusive, Inconclusive},
		{[]Status{Skipped, Skipped}, Inconclusive, Inconclusive},
		{[]Status{Pass}, Pass, Pass},
		{[]Status{Pass, Skipped}, Pass, Pass},
		{[]Status{Pass, Warn, Skipped}, Warn, Pass},
		{[]Status{Warn, Inconclusive, Pass}, Inconclusive, Inconclusive},
		{[]Status{Inconclusive, Fail, Warn}, Fail, Fail},
		{[]Status{Fail, Pass}, Fail, Fail},
		{[]Status{Pass, "bogus"}, "bogus", "bogus"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Combine(tt.parts...), "Combine(%q)", tt.parts)
		assert.Equal(t, tt.gate, Gate(tt.parts...), "Gate(%q)", tt.parts)
	}
}

func TestStatus(t *testing.T) {
	for _, s := range []Status{Pass, Fail, Warn, Inconclusive, Skipped} {
		assert.True(t, s.Valid(), "%q.Valid()", s)
		assert.Equal(t, s == Fail || s == Warn, s.Finding(), "%q.Finding()", s)
	}
	assert.False(t, Status("").Valid())
	assert.False(t, Status("PASS").Valid())
}

func TestExitCode(t *testing.T) {
	for s, want := range map[Status]ExitCode{
		Pass: ExitPass, Warn: ExitPass, Fail: ExitFail, Inconclusive: ExitNoVerdict, Skipped: ExitNoVerdict, "bogus": ExitKit,
	} {
		assert.Equal(t, want, s.ExitCode(), "%q", s)
	}
	table := ExitCodes()
	for _, code := range []ExitCode{ExitPass, ExitFail, ExitUsage, ExitKit, ExitNoVerdict, ExitInterrupted} {
		assert.Regexp(t, fmt.Sprintf(`(?m)^  %-3d  \S`, code), table, "the table names exit %d", code)
	}
}
