package kit_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

func TestParseSpecs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"full", []string{"full"}},
		{"full:base=100ms,cap=10s", []string{"full:base=100ms,cap=10s"}},
		{"none:base=1s,cap=30s,full:base=1s,cap=30s", []string{"none:base=1s,cap=30s", "full:base=1s,cap=30s"}},
		{"none,full,equal,decorrelated", []string{"none", "full", "equal", "decorrelated"}},
		{"none:base=1s;full", []string{"none:base=1s", "full"}},
		{" full , none:cap=5s ", []string{"full", "none:cap=5s"}},
	}
	for _, tt := range tests {
		specs, err := kit.ParseSpecs(tt.in)
		require.NoError(t, err, "ParseSpecs(%q)", tt.in)
		var want []string
		for _, w := range tt.want {
			s, err := kit.ParseSpec(w)
			require.NoError(t, err)
			want = append(want, s.String())
		}
		var got []string
		for _, s := range specs {
			got = append(got, s.String())
		}
		assert.Equal(t, want, got, "ParseSpecs(%q)", tt.in)
	}
	_, err := kit.ParseSpecs("full:base=1s,,cap=30s")
	assert.EqualError(t, err, `policy spec "full:base=1s,,cap=30s": "": want key=value`)
	_, err = kit.ParseSpecs("full,fast")
	assert.EqualError(t, err, `policy spec "fast": fast: unknown strategy (want none, full, equal or decorrelated)`)
}
