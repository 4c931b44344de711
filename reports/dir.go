package reports

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// A Format is one of the report's files, named by its file.
type Format string

// A format is one row of the table of WriteDir's formats: its file, where
// it stands in that table, how it renders a report, and how its first
// bytes show that this package wrote the file. Each lives in the file of
// its writer, which registers it (see register).
type format struct {
	file Format
	// position places the format in WriteDir's order and in Formats,
	// lowest first; no two formats share one. The formats stand ten
	// apart, so that a new one goes between two without moving the
	// others.
	position int
	render   func(Report) ([]byte, error)
	// written reports whether head, the first bytes of a file named as
	// this format, is the start of a report that this package wrote.
	// WriteDir replaces and removes only such files. The test is of the
	// file's own first bytes, which every version of the format has begun
	// with; it keeps WriteDir from overwriting a user's own report.md, not
	// an adversary out.
	written func(head []byte) bool
}

// registered holds the rows of the formats, in the order their files
// registered them, until init sorts them into dirFormats.
var registered []format

// register adds f to WriteDir's formats and returns true. A format's file
// calls it in a package-level declaration,
//
//	var _ = register(format{file: JSON, position: 10, ...})
//
// which Go runs before any init function, so that init sees every row
// whatever the files are named.
func register(f format) bool {
	registered = append(registered, f)
	return true
}

// dirFormats are WriteDir's formats, in the order it writes them.
var dirFormats []format

func init() { dirFormats = ordered(registered) }

// ordered returns rows sorted by position. It panics, naming the format,
// on a row without a file, a render or a written, and on two rows that
// share a file or a position.
func ordered(rows []format) []format {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b format) int { return cmp.Compare(a.position, b.position) })
	seen := make(map[Format]bool, len(rows))
	for i, f := range rows {
		switch {
		case f.file == "":
			panic(fmt.Sprintf("reports: a format at position %d has no file", f.position))
		case f.render == nil || f.written == nil:
			panic(fmt.Sprintf("reports: format %q has no render or no written", f.file))
		case i > 0 && rows[i-1].position == f.position:
			panic(fmt.Sprintf("reports: formats %q and %q share position %d", rows[i-1].file, f.file, f.position))
		case seen[f.file]:
			panic(fmt.Sprintf("reports: format %q is registered twice", f.file))
		}
		seen[f.file] = true
	}
	return rows
}

// Formats returns the formats WriteDir writes, in the order it writes them.
func Formats() []Format {
	out := make([]Format, len(dirFormats))
	for i, f := range dirFormats {
		out[i] = f.file
	}
	return out
}

// lookup returns the row of f, or false for a name that is no format.
func (f Format) lookup() (format, bool) {
	for _, row := range dirFormats {
		if row.file == f {
			return row, true
		}
	}
	return format{}, false
}

// formatList lists the formats for a message: "report.json, report.md,
// report.html or junit.xml".
func formatList() string {
	names := make([]string, len(dirFormats))
	for i, f := range dirFormats {
		names[i] = string(f.file)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// headSize is how much of an existing file Format.written reads: enough
// for the schema and verdict of report.json, whatever they hold.
const headSize = 8 << 10

// WriteDir writes r into dir, created if missing, as the files of the given
// formats, or of all of them ([Formats]) when none is given. ctx stops it while it waits
// for another writer of dir, and before it swaps its files in.
//
// dir ends up holding one whole set: the files of one report in the
// formats asked for, and no report file of another format (one that an
// earlier call wrote is removed), so that the report files side by side
// always come from one run. WriteDir goes in four steps:
//
//  1. Every format is rendered, then written to a temporary file in dir
//     and synced. A report that cannot be rendered or a failed write stops
//     here, and dir is as it was.
//  2. It takes an exclusive lock on dir: flock(2) on the directory itself,
//     which leaves no file behind. Two writers of one directory, goroutines
//     or processes, therefore swap their sets one after the other, and the
//     last one to swap leaves its set, whole.
//  3. Under the lock, it checks every file it would replace or remove. It
//     replaces and removes only the report files it wrote: a regular file
//     named as a format whose first bytes are those of that format's
//     report. Any other file in dir, a user's notes.txt or their own
//     report.md, is never moved, removed or overwritten: when a file that
//     must be replaced is a directory, a link, a pipe or a file WriteDir did
//     not write, it stops with an error naming that file, and dir is as it
//     was.
//  4. It swaps the set in, one rename per file, keeping each old file under
//     a second name (a hard link where the file system has them) until all
//     are done. If a rename fails, those done are undone, and dir holds the
//     previous set, whole. Only then are the old files removed and the lock
//     released.
//
// The guarantee: when WriteDir returns, dir holds one whole set, the new
// one on success and on an error the previous one (or none), never part of
// each; an error says so if undoing a failed swap failed too, and names
// where the old files are kept. A reader that holds a shared flock(2) on
// dir while it reads (flock -s DIR CMD) never sees a mixed set. What it
// does not guarantee: a reader that takes no lock and reads during a swap
// (a few renames, microseconds) can see a mix, and a process killed during
// those renames leaves one, with the old files kept as hidden ".old" files;
// one killed earlier leaves hidden ".tmp" files. Neither is removed later.
//
// Why not build the set in a new directory and exchange it for dir in one
// rename (renameat2 with RENAME_EXCHANGE), which no crash can split? That
// works only when dir holds nothing but reports, is not the current
// directory or a mount point, and its parent is writable; and it gives dir
// a new inode, cutting off what works inside it (a shell, a web server
// serving it, a file watcher) and dropping its owner, mode, ACLs and
// labels. The lock and the journal work on every directory, "." included,
// and leave dir itself alone.
//
// Without flock(2) (Windows), or on a file system that refuses the lock,
// step 2 is skipped, and two writers at once can leave a mix. On a network
// file system the lock keeps apart the writers of one machine only.
func WriteDir(ctx context.Context, dir string, r Report, formats ...Format) error {
	r, err := prepare(r)
	if err != nil {
		return err
	}
	if len(formats) == 0 {
		formats = Formats()
	}
	files := make([]dirFile, 0, len(formats))
	for _, f := range formats {
		row, ok := f.lookup()
		if !ok {
			return fmt.Errorf("reports: unknown format %q (want %s)", Visible(string(f), nameMax), formatList())
		}
		if slices.ContainsFunc(files, func(d dirFile) bool { return d.format == f }) {
			continue
		}
		data, err := row.render(r)
		if err != nil {
			return fmt.Errorf("reports: rendering %s: %w", f, err)
		}
		files = append(files, dirFile{format: f, data: data})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err // a *fs.PathError, which names dir
	}
	return writeSet(ctx, dir, files, osFS)
}

// A dirFile is a rendered file waiting to be written.
type dirFile struct {
	format Format
	data   []byte
}

// fsOps are the file system's operations that writeSet uses, so that a
// test can make one fail part-way.
type fsOps struct {
	put    func(w io.Writer, data []byte) error // copies data into a temporary file
	rename func(from, to string) error
	link   func(from, to string) error
	remove func(path string) error
}

var osFS = fsOps{put: copyData, rename: os.Rename, link: os.Link, remove: os.Remove}

// A swapStep is one file of a swap: a report file to replace, or one of
// another format to remove, and how far the swap has gone with it.
type swapStep struct {
	target string // the report file
	temp   string // its new content, or "" to remove target
	old    bool   // target held a report before
	backup string // where the old report is kept during the swap

	backedUp bool // backup holds the old report
	viaLink  bool // backup is a hard link, and target still holds it too
	placed   bool // the new file, or the removal, is in place
}

// clearDir removes from dir the report that WriteDir wrote there, so that
// an earlier run's report is not taken for the outcome of a run that has
// none, and returns the formats it removed, in the order of Formats. It
// removes only what WriteDir would replace: a regular file named as a
// format whose first bytes are that format's report. Every other file in
// dir stays, a user's own report.md included, and a dir that does not
// exist holds nothing to remove.
//
// It goes as WriteDir does, under the same lock, with an empty set: every
// report file is first moved to a hidden backup, and only when all are
// moved are the backups removed; if a move fails, those done are undone.
// So dir holds the whole previous report or none of it, never a part,
// and a reader that holds a shared flock(2) on dir sees one or the other.
// ctx stops it while it waits for another writer of dir.
func clearDir(ctx context.Context, dir string) ([]Format, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err // a *fs.PathError, which names dir
	case !fi.IsDir():
		return nil, &fs.PathError{Op: "clear", Path: dir, Err: syscall.ENOTDIR}
	}
	steps, err := swapSet(ctx, dir, nil, osFS)
	var removed []Format
	if err == nil {
		for _, s := range steps {
			removed = append(removed, Format(filepath.Base(s.target)))
		}
	}
	return removed, err
}

// writeSet writes files into dir as WriteDir documents: temporary files,
// the lock, the checks, and the swap.
func writeSet(ctx context.Context, dir string, files []dirFile, ops fsOps) error {
	_, err := swapSet(ctx, dir, files, ops)
	return err
}

// swapSet puts files in dir in place of the report there, as WriteDir
// documents, and returns the steps of the swap: each report file replaced
// or removed. With no files, it removes the report there.
func swapSet(ctx context.Context, dir string, files []dirFile, ops fsOps) ([]*swapStep, error) {
	var temps []string
	defer func() {
		for _, t := range temps {
			if t != "" {
				ops.remove(t)
			}
		}
	}()
	for _, f := range files {
		t, err := writeTemp(dir, string(f.format), f.data, 0o644, ops.put)
		if err != nil {
			return nil, err
		}
		temps = append(temps, t)
	}
	// The backups take the random part of a temporary file's name, which
	// no other file of this swap has. An empty set reserves one, empty,
	// removed at the end with the others.
	reserved, first := "", "report"
	if len(files) > 0 {
		reserved, first = temps[0], string(files[0].format)
	} else {
		t, err := writeTemp(dir, first, nil, 0o600, ops.put)
		if err != nil {
			return nil, err
		}
		reserved = t
		defer ops.remove(t)
	}
	suffix := strings.TrimPrefix(filepath.Base(reserved), "."+first+".")
	suffix = strings.TrimSuffix(suffix, ".tmp")

	unlock, err := lockDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer unlock()

	var steps []*swapStep
	for _, row := range dirFormats {
		f := row.file
		target := filepath.Join(dir, string(f))
		i := slices.IndexFunc(files, func(d dirFile) bool { return d.format == f })
		ours, err := reportFile(target, row)
		if err != nil && i < 0 {
			continue // not asked for and not ours to remove: left alone
		}
		if err != nil {
			return nil, err
		}
		s := &swapStep{target: target, old: ours, backup: filepath.Join(dir, "."+string(f)+"."+suffix+".old")}
		if i >= 0 {
			s.temp = temps[i]
		} else if !ours {
			continue
		}
		steps = append(steps, s)
	}
	if err := ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "write", Path: dir, Err: err}
	}

	if err := swap(steps, ops); err != nil {
		if rerr := undo(steps, ops); rerr != nil {
			var kept []string
			for _, s := range steps {
				if s.backedUp {
					kept = append(kept, s.backup)
				}
			}
			return nil, fmt.Errorf("reports: %w; undoing the swap failed too, and %s may hold a mixed set (the previous files are kept as %s): %w",
				err, dir, strings.Join(kept, ", "), rerr)
		}
		return nil, fmt.Errorf("reports: %w (the previous report is left whole)", err)
	}
	temps = nil
	for _, s := range steps {
		if s.backedUp {
			ops.remove(s.backup)
		}
	}
	return steps, syncDir(dir)
}

// reportFile says whether path holds a report of format f that this
// package wrote (true), or nothing (false). It returns an error naming
// path when path is anything else: WriteDir must not replace it.
func reportFile(path string, f format) (bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	what := ""
	switch m := fi.Mode(); {
	case m.IsRegular():
		head, err := readHead(path)
		if err != nil {
			return false, err
		}
		if f.written(head) {
			return true, nil
		}
		what = "a file that is not a jitterkit report"
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	default:
		what = "not a regular file"
	}
	return false, &fs.PathError{Op: "replace", Path: path, Err: fmt.Errorf("%w: it is %s, which a report never replaces; nothing was written", errNotReport, what)}
}

// errNotReport is the error of a file that WriteDir would replace but did
// not write.
var errNotReport = errors.New("not a report file")

// readHead returns the first headSize bytes of the regular file at path.
func readHead(path string) ([]byte, error) {
	f, err := os.OpenFile(path, headFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, err := io.ReadFull(f, head)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return head[:n], err
}

// swap moves each step's file into place: the old report to its backup (a
// hard link, or a rename where links are not supported), then the new file
// over the old, or the old one away. It stops at the first failure.
func swap(steps []*swapStep, ops fsOps) error {
	for _, s := range steps {
		if s.old {
			if s.temp != "" && ops.link(s.target, s.backup) == nil {
				s.backedUp, s.viaLink = true, true
			} else if err := ops.rename(s.target, s.backup); err != nil {
				return err
			} else {
				s.backedUp = true
			}
		}
		if s.temp != "" {
			if err := ops.rename(s.temp, s.target); err != nil {
				return err
			}
		}
		s.placed = true
	}
	return nil
}

// undo puts back what swap moved, last first, and returns the errors of
// what it could not.
func undo(steps []*swapStep, ops fsOps) error {
	var errs []error
	for _, s := range slices.Backward(steps) {
		var err error
		switch {
		case s.backedUp && s.viaLink && !s.placed:
			err = ops.remove(s.backup) // the old report never left target
		case s.backedUp:
			err = ops.rename(s.backup, s.target)
		case s.placed:
			err = ops.remove(s.target) // there was none before
		}
		if err != nil {
			errs = append(errs, err)
		} else {
			s.backedUp = false
		}
	}
	return errors.Join(errs...)
}
