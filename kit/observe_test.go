package kit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOutcomeString(t *testing.T) {
	tests := []struct {
		o    Outcome
		want string
	}{
		{Success, "success"},
		{Rejection, "rejection"},
		{Timeout, "timeout"},
		{Drop, "drop"},
		{0, "Outcome(0)"},
		{Drop + 1, "Outcome(5)"},
		{-1, "Outcome(-1)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.o.String(), "Outcome(%d).String()", int(tt.o))
	}
}
