package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLine(t *testing.T) {
	tests := []struct {
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{0, 100, 1500 * time.Millisecond, "replay [>                             ]   0%  1.5s"},
		{45, 100, 3100 * time.Millisecond, "replay [=============>                ]  45%  3.1s"},
		{100, 100, 10 * time.Second, "replay [==============================] 100%  10.0s"},
		{250, 100, time.Second, "replay [==============================] 100%  1.0s"},
		{1234, 0, 2 * time.Second, "replay  1234  2.0s"},
	}
	for _, tt := range tests {
		b := &Bar{label: "replay"}
		b.done.Store(tt.done)
		b.total.Store(tt.total)
		assert.Equal(t, tt.want, b.line(tt.elapsed), "line(%d of %d, %v)", tt.done, tt.total, tt.elapsed)
	}
}

// TestNotATerminal checks that a bar on a buffer writes nothing, however
// long the work, and that one on a file writes plain lines, none before
// its interval.
func TestNotATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer f.Close()
	var buf bytes.Buffer
	b := start(&buf, "replay", 10, 0, 0)
	b.Add(5)
	time.Sleep(150 * time.Millisecond)
	b.Finish()
	assert.Zero(t, buf.Len(), "bytes a bar on a buffer wrote")

	assert.False(t, IsTerminal(f))
	quiet := start(f, "replay", 10, 0, time.Hour)
	quiet.Add(5)
	time.Sleep(50 * time.Millisecond)
	quiet.Finish()
	st, _ := f.Stat()
	assert.Zero(t, st.Size(), "work shorter than the interval writes no line")

	b = start(f, "replay", 10, 0, 20*time.Millisecond)
	b.Add(6)
	// Poll for the first line rather than sleep a fixed time: a loaded
	// machine may run the ticker late, never early.
	require.Eventually(t, func() bool { st, _ := f.Stat(); return st.Size() > 0 }, 10*time.Second, 5*time.Millisecond)
	b.Finish()
	data, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.NotEmpty(t, lines)
	assert.Regexp(t, `^jitterkit: replay: 6 of 10 \(60%\), \d+m?s$`, lines[0])
}

func TestPlainLine(t *testing.T) {
	b := &Bar{label: "fix search"}
	b.total.Store(20)
	b.done.Store(12)
	assert.Equal(t, "jitterkit: fix search: 12 of 20 (60%), 10s", b.plainLine(10*time.Second+300*time.Millisecond))
	b.total.Store(0)
	assert.Equal(t, "jitterkit: fix search: 12 done, 1m5s", b.plainLine(65*time.Second))
}

func TestNilBar(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.Finish()
}
