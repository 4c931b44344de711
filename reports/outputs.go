package reports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jitterkit/jitterkit/sim"
)

// Outputs are the files one run writes: the replay's JSON and the report's
// directory, each "" when the run writes none. Their rule is that they
// hold this run's outcome or nothing: a run that ends without an outcome
// retires what an earlier run left in them (see [Outputs.Retire]), and an
// output that cannot be written is retired, so that the last run's PASS
// never passes for this run's.
type Outputs struct {
	// JSON is the file of the replay's JSON, in the shape of
	// sim.Result.WriteJSON.
	JSON string
	// Dir is the report's directory, written by [WriteDir].
	Dir string
}

// The outputs, as an OutputError and an OutputNote name them: the names
// of the command's flags that set them.
const (
	outputJSON   = "json"
	outputReport = "report"
)

// An OutputError is an output that is refused, or could not be written.
type OutputError struct {
	// Output is "json" (the replay's JSON) or "report" (the report's
	// directory).
	Output string
	// Err says what is wrong, naming the path.
	Err error
}

func (e *OutputError) Error() string { return "the " + e.Output + " output: " + e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// An OutputNote says what a run did with one of its outputs: that an
// earlier run's file was removed, or could not be, that the output was not
// written, and why, or which files the report was written to.
type OutputNote struct {
	// Output is "json" or "report", as an OutputError names it, and
	// Path its file.
	Output, Path string
	// Text says what happened, in a line; a note that is not Retired
	// names the output itself.
	Text string
	// Retired is true when the note is about an earlier run's file.
	Retired bool
}

// Check refuses, before any work, outputs that would destroy what they
// are written over or cannot hold what they are given:
//
//   - an output that is one of inputs, the files the run reads ("" for
//     none), or a JSON file that is one of the report's;
//   - a block device, a Dir that is a file, or that holds a file named as
//     a format that is not this package's report (see [WriteDir]);
//   - a JSON file that sim.CheckJSONPath refuses, or that its links lead
//     nowhere a file can be written;
//   - the JSON of a sampled replay, whose figures are the sample's with
//     nothing to say so;
//   - a directory the files would be created in where the process may
//     not create them, or a file there it may not replace (another user's
//     in a sticky directory).
//
// It returns an *OutputError. What changes on the file system after
// Check still shows when the files are written.
func (o Outputs) Check(sampled bool, inputs ...string) error {
	if err := o.checkDir(); err != nil {
		return &OutputError{outputReport, err}
	}
	if o.JSON != "" && o.Dir != "" {
		ji, jerr := os.Stat(o.JSON)
		for _, p := range paths(o.Dir) {
			pi, perr := os.Stat(p)
			if filepath.Clean(p) == filepath.Clean(o.JSON) || jerr == nil && perr == nil && os.SameFile(ji, pi) {
				return &OutputError{outputJSON, fmt.Errorf("%s is a file of the report in %s too; write it elsewhere", o.JSON, o.Dir)}
			}
		}
	}
	for _, out := range o.files() {
		fi, err := os.Stat(out.path)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0 {
			return &OutputError{out.output, fmt.Errorf("%s is a block device; write the output to a file", out.path)}
		}
		for _, in := range inputs {
			if inInfo, err := os.Stat(in); in != "" && err == nil && os.SameFile(inInfo, fi) {
				return &OutputError{out.output, fmt.Errorf("%s would be written over %s, an input of this run; write it elsewhere", out.path, in)}
			}
		}
	}
	if err := o.checkJSON(sampled); err != nil {
		return &OutputError{outputJSON, err}
	}
	return nil
}

// checkDir refuses a Dir that WriteDir could not write: a file, a
// directory holding a file named as a format that is not a report, or one
// where the process may not create or replace the files.
func (o Outputs) checkDir() error {
	if o.Dir == "" {
		return nil
	}
	if fi, err := os.Stat(o.Dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", o.Dir)
	}
	for _, row := range dirFormats {
		var pe *fs.PathError
		if _, err := reportFile(filepath.Join(o.Dir, string(row.file)), row); errors.As(err, &pe) && errors.Is(err, errNotReport) {
			return fmt.Errorf("%s: %w", pe.Path, pe.Err)
		} else if err != nil {
			return err
		}
	}
	if err := canCreateIn(existingAncestor(o.Dir)); err != nil {
		return err
	}
	for _, p := range paths(o.Dir) {
		if err := canReplace(o.Dir, p); err != nil {
			return err
		}
	}
	return nil
}

// checkJSON refuses a JSON file that writeFile could not write, or that
// would not say what it holds.
func (o Outputs) checkJSON(sampled bool) error {
	if o.JSON == "" {
		return nil
	}
	if _, ok := descriptor(o.JSON); ok {
		return nil // a stream the process holds open, written as it is
	}
	if sampled {
		return errors.New("does not take a sampled replay, whose figures are the sample's; write a report instead, whose files say what the sample stands for")
	}
	if err := sim.CheckJSONPath(o.JSON); err != nil {
		return err
	}
	// The JSON goes where writeFile takes it: through every link, to a
	// device or FIFO written in place, or to a regular file replaced
	// through a new file beside it, in a directory that must exist.
	target, fi, err := followLinks(o.JSON)
	if err != nil || fi != nil && !fi.Mode().IsRegular() {
		return err
	}
	dir, _ := splitPath(target)
	if err := canCreateIn(dir); err != nil {
		return err
	}
	return canReplace(dir, target)
}

// existingAncestor returns path, or its nearest ancestor that exists: the
// directory a file under path would be created in, once the missing
// directories between are.
func existingAncestor(path string) string {
	for {
		if _, err := os.Stat(path); err == nil {
			return path
		}
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		path = parent
	}
}

// An outputFile is one file of the outputs, with the output it belongs to.
type outputFile struct{ output, path string }

// files lists every file o writes, with the output each belongs to.
func (o Outputs) files() []outputFile {
	var out []outputFile
	if o.JSON != "" {
		out = append(out, outputFile{outputJSON, o.JSON})
	}
	if o.Dir != "" {
		for _, p := range paths(o.Dir) {
			out = append(out, outputFile{outputReport, p})
		}
	}
	return out
}

// Retire removes what o's files hold of an earlier run, for a run that
// ends without an outcome to write in their place: only what this package
// and sim wrote is removed (clearDir, sim.RemoveJSON). The notes say
// what was removed, or could not be.
func (o Outputs) Retire(ctx context.Context) []OutputNote {
	var notes []OutputNote
	if o.Dir != "" {
		notes = append(notes, o.retireDir(ctx)...)
	}
	if o.JSON != "" {
		notes = append(notes, o.retireJSON("this run has no figures to replace it")...)
	}
	return notes
}

// retireDir removes the report in o.Dir.
func (o Outputs) retireDir(ctx context.Context) []OutputNote {
	removed, err := clearDir(ctx, o.Dir)
	if err != nil {
		return []OutputNote{{outputReport, o.Dir, "the previous report there is not this run's, and removing it failed: " + err.Error(), true}}
	}
	if len(removed) == 0 {
		return nil
	}
	names := make([]string, len(removed))
	for i, f := range removed {
		names[i] = string(f)
	}
	return []OutputNote{{outputReport, o.Dir, fmt.Sprintf("the previous report (%s) was removed, as this run has none to replace it", strings.Join(names, ", ")), true}}
}

// retireJSON removes the replay's JSON at o.JSON, saying why this run
// writes none. A stream the process holds open (/dev/stdout) is not this
// run's to remove.
func (o Outputs) retireJSON(why string) []OutputNote {
	if _, ok := descriptor(o.JSON); ok {
		return nil
	}
	removed, err := sim.RemoveJSON(o.JSON)
	switch {
	case err != nil:
		return []OutputNote{{outputJSON, o.JSON, "the previous replay's JSON there is not this run's, and removing it failed: " + err.Error(), true}}
	case removed:
		return []OutputNote{{outputJSON, o.JSON, "the previous replay's JSON was removed, as " + why, true}}
	}
	return nil
}

// Write writes rep to o's files: the replay's JSON, naming policy as the
// replayed policy, then the report. A replay without figures (stopped by a
// policy's defect, or none) writes no JSON and retires the last one, as a
// note says. An output that cannot be written is retired and the other
// still written: the report is this run's outcome all the same. A
// rendering that fails retires both. Write returns the notes and the
// first output's *OutputError; an error that is ctx's (a FIFO without a
// reader, or a write that ctx stopped before its files were in place)
// returns at once and retires nothing.
func (o Outputs) Write(ctx context.Context, rep Report, policy string) ([]OutputNote, error) {
	var notes []OutputNote
	var first error
	if o.JSON != "" {
		var b bytes.Buffer
		switch err := rep.Replay.WriteJSON(&b, policy); {
		case errors.Is(err, ErrNoFigures):
			notes = append(notes, OutputNote{outputJSON, o.JSON, o.JSON + ": not written: " + err.Error(), false})
			notes = append(notes, o.retireJSON(err.Error())...)
		case err != nil:
			return append(notes, o.Retire(ctx)...), &OutputError{outputJSON, err}
		default:
			if err := writeFile(ctx, o.JSON, b.Bytes()); err != nil {
				if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
					return notes, &OutputError{outputJSON, err}
				}
				first = &OutputError{outputJSON, err}
				notes = append(notes, o.retireJSON("this run's could not be written")...)
			}
		}
	}
	if o.Dir != "" {
		if err := WriteDir(ctx, o.Dir, rep); err != nil {
			if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
				notes = append(notes, o.retireDir(ctx)...)
			}
			if first == nil {
				first = &OutputError{outputReport, err}
			}
		} else {
			notes = append(notes, OutputNote{outputReport, o.Dir, "report: " + strings.Join(paths(o.Dir), ", "), false})
		}
	}
	return notes, first
}
