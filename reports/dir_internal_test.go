package reports

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFilesInterrupted fails the second file's write halfway, as a
// full disk or an interrupt would: every old file must be left whole, and
// no temporary file behind.
func TestWriteFilesInterrupted(t *testing.T) {
	dir := t.TempDir()
	old := map[string]string{"report.json": `{"schema":"old"}`, "report.md": "# old\n"}
	for name, data := range old {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := []dirFile{
		{name: "report.json", data: []byte(`{"schema":"new","checks":[]}`)},
		{name: "report.md", data: []byte("# new report, long enough to be cut in half\n")},
	}
	calls := 0
	errDiskFull := errors.New("no space left on device")
	err := writeFiles(dir, files, func(w io.Writer, data []byte) error {
		calls++
		if calls == 2 {
			w.Write(data[:len(data)/2])
			return errDiskFull
		}
		_, err := w.Write(data)
		return err
	})
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("writeFiles error = %v; want %v", err, errDiskFull)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(old) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("dir holds %q after a failed write; want only the old files", names)
	}
	for name, want := range old {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s = %q after a failed write; want the old %q", name, got, want)
		}
	}
}
