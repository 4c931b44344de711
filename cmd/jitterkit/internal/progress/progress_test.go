package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
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
		if got := b.line(tt.elapsed); got != tt.want {
			t.Errorf("line(%d of %d, %v) = %q; want %q", tt.done, tt.total, tt.elapsed, got, tt.want)
		}
	}
}

// TestNotATerminal checks that a bar on a file or a buffer writes nothing,
// however long the work.
func TestNotATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for _, w := range []interface{ Write([]byte) (int, error) }{f, &buf} {
		if IsTerminal(w) {
			t.Errorf("IsTerminal(%T) = true", w)
		}
		b := start(w, "replay", 10, 0)
		b.Add(5)
		time.Sleep(150 * time.Millisecond)
		b.Finish()
	}
	if st, _ := f.Stat(); st.Size() != 0 || buf.Len() != 0 {
		t.Errorf("a bar on a file wrote %d bytes, on a buffer %d; want none", st.Size(), buf.Len())
	}
}

func TestNilBar(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.Finish()
}
