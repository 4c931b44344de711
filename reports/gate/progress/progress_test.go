package progress

import (
	"bytes"
	"os"
	"path/filepath"
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

// TestNotATerminal checks that a bar on a file or a buffer writes nothing,
// however long the work.
func TestNotATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer f.Close()
	var buf bytes.Buffer
	for _, w := range []interface{ Write([]byte) (int, error) }{f, &buf} {
		assert.False(t, IsTerminal(w), "IsTerminal(%T)", w)
		b := start(w, "replay", 10, 0)
		b.Add(5)
		time.Sleep(150 * time.Millisecond)
		b.Finish()
	}
	st, _ := f.Stat()
	assert.Zero(t, st.Size(), "bytes a bar on a file wrote")
	assert.Zero(t, buf.Len(), "bytes a bar on a buffer wrote")
}

func TestNilBar(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.Finish()
}
