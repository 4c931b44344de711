package reports_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports"
)

func TestOutputsCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "trace.csv")
	require.NoError(t, os.WriteFile(file, []byte("device,attempt,delay_s\n"), 0o644))
	user := filepath.Join(dir, "user")
	require.NoError(t, os.Mkdir(user, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(user, "report.md"), []byte("# my notes\n"), 0o644))
	missing := filepath.Join(dir, "missing", "r.json")
	loop := filepath.Join(dir, "loop-a")
	require.NoError(t, os.Symlink("loop-b", loop))
	require.NoError(t, os.Symlink("loop-a", filepath.Join(dir, "loop-b")))
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink("nodir/r.json", dangling))
	tests := []struct {
		name    string
		o       reports.Outputs
		sampled bool
		output  string // the refused output, "" for none
		want    string
	}{
		{"nothing", reports.Outputs{}, false, "", ""},
		{"a new JSON file", reports.Outputs{JSON: filepath.Join(dir, "r.json")}, false, "", ""},
		{"a report dir that is a file", reports.Outputs{Dir: file}, false, "report", file + " is not a directory"},
		{"JSON over an input", reports.Outputs{JSON: file}, false, "json", file + " would be written over " + file + ", an input of this run; write it elsewhere"},
		{"JSON at a directory", reports.Outputs{JSON: dir}, false, "json", dir + " is a directory; name a file"},
		{"a user's own report.md", reports.Outputs{Dir: user}, false, "report", filepath.Join(user, "report.md") + ": not a report file: it is a file that is not a jitterkit report, which a report never replaces; nothing was written"},
		{"a report dir to be made", reports.Outputs{Dir: filepath.Join(dir, "a", "b")}, false, "", ""},
		{"JSON in a directory that does not exist", reports.Outputs{JSON: missing}, false, "json", "cannot create a file in " + filepath.Dir(missing) + ": no such file or directory"},
		{"JSON over the report's", reports.Outputs{JSON: filepath.Join(dir, "both", "report.json"), Dir: filepath.Join(dir, "both") + "/"}, false, "json", filepath.Join(dir, "both", "report.json") + " is a file of the report in " + filepath.Join(dir, "both") + "/ too; write it elsewhere"},
		{"JSON through a loop of links", reports.Outputs{JSON: loop}, false, "json", "open " + loop + ": too many levels of symbolic links"},
		{"JSON through a link into a missing directory", reports.Outputs{JSON: dangling}, false, "json", "cannot create a file in " + filepath.Join(dir, "nodir") + ": no such file or directory"},
		{"JSON under a file", reports.Outputs{JSON: filepath.Join(file, "r.json")}, false, "json", "lstat " + filepath.Join(file, "r.json") + ": not a directory"},
		{"JSON of a sample", reports.Outputs{JSON: filepath.Join(dir, "r.json")}, true, "json", "does not take a sampled replay, whose figures are the sample's; write a report instead, whose files say what the sample stands for"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Check(tt.sampled, file)
			if tt.output == "" {
				require.NoError(t, err)
				return
			}
			var oe *reports.OutputError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tt.output, oe.Output)
			assert.Equal(t, tt.want, oe.Err.Error())
		})
	}
}

func TestOutputsWriteAndRetire(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	o := reports.Outputs{JSON: filepath.Join(dir, "replay.json"), Dir: filepath.Join(dir, "out")}

	notes, err := o.Write(ctx, passingReport(), "full")
	require.NoError(t, err)
	require.Len(t, notes, 1)
	assert.Equal(t, reports.OutputNote{Output: "report", Path: o.Dir, Text: "report: " + joinPaths(o.Dir)}, notes[0])
	require.FileExists(t, o.JSON)

	// A report without figures writes no JSON and retires the last one.
	rep := passingReport()
	rep.Replay = nil
	notes, err = o.Write(ctx, rep, "full")
	require.NoError(t, err)
	require.Len(t, notes, 3)
	assert.Equal(t, o.JSON+": not written: the replay stopped before any run's figures", notes[0].Text)
	assert.False(t, notes[0].Retired)
	assert.Equal(t, "the previous replay's JSON was removed, as the replay stopped before any run's figures", notes[1].Text)
	assert.True(t, notes[1].Retired)
	assert.NoFileExists(t, o.JSON)

	notes = o.Retire(ctx)
	require.Len(t, notes, 1)
	assert.Equal(t, reports.OutputNote{Output: "report", Path: o.Dir, Text: "the previous report (report.json, report.md, report.html, junit.xml) was removed, as this run has none to replace it", Retired: true}, notes[0])
	for _, p := range reports.Paths(o.Dir) {
		assert.NoFileExists(t, p)
	}
	assert.Empty(t, o.Retire(ctx), "nothing is left to retire")

	// A report that cannot be written, here over a user's own file that
	// appeared after Check, is retired whole, and the JSON is still
	// written.
	notes, err = o.Write(ctx, passingReport(), "full")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(o.Dir, "report.md"), []byte("# my notes\n"), 0o644))
	notes, err = o.Write(ctx, passingReport(), "full")
	var oe *reports.OutputError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "report", oe.Output)
	require.Len(t, notes, 1)
	assert.Equal(t, "the previous report (report.json, report.html, junit.xml) was removed, as this run has none to replace it", notes[0].Text)
	assert.FileExists(t, o.JSON)
	assert.FileExists(t, filepath.Join(o.Dir, "report.md"))
	assert.NoFileExists(t, filepath.Join(o.Dir, "report.json"))
}

// joinPaths lists the report's files in dir as the written note does.
func joinPaths(dir string) string {
	s := ""
	for i, p := range reports.Paths(dir) {
		if i > 0 {
			s += ", "
		}
		s += p
	}
	return s
}
