package reports

import (
	"cmp"
	"context"
	"crypto/rand"
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

// WriteDir writes r into dir as the files of the given formats, or of all
// of them ([Formats]) when none is given, and removes the report files of
// the other formats that an earlier call left there, so that the report
// files side by side come from one run. A missing dir is created, with its
// parents; a symbolic link to a directory is followed and stays a link.
// ctx stops WriteDir before it puts the files in place.
//
// Every format is rendered first. WriteDir replaces and removes only the
// report files it wrote: regular files named as a format that begin as
// that format's report. When a file it would replace is anything else (a
// user's own report.md, a directory, a link, a pipe), it stops with an
// error naming that file. Every other file is left alone: a user's
// notes.txt, a subdirectory, a file of a format not asked for that is not
// a report. An error before the files are put in place leaves dir as it
// was. The files are put in place in one of two ways:
//
//   - A new directory, when dir is missing or holds report files alone:
//     the files are written and synced into a hidden directory beside dir,
//     given dir's mode, which takes dir's name once dir is renamed aside;
//     the old one is then removed, and a failed rename puts it back. A
//     reader that opens dir once and reads the files in it (cd DIR, an
//     os.Root) sees one whole set, or files gone once a newer set took its
//     place, never parts of two; dir is missing between the renames. Of
//     two writers at once, the last leaves its set, whole.
//   - File by file, when dir holds other files, is the working directory,
//     or is one that a new directory would not stand in for whole: a mount
//     point, another owner or group, extended attributes such as an ACL,
//     and any existing directory off Linux. dir and all else in it stay as
//     they are: each file is written and synced beside its report file, then
//     each is renamed over it. Every file is whole at all times, but a
//     reader during the renames, two writers at once, or a rename that
//     fails part-way can see or leave files of two runs.
//
// A process killed before the renames leaves hidden ".tmp" files or
// directories; one killed between the renames of a directory leaves the
// previous set in a hidden ".old" directory beside it. Neither is removed
// later.
func WriteDir(ctx context.Context, dir string, r Report, formats ...Format) error {
	r, err := prepare(r)
	if err != nil {
		return err
	}
	if len(formats) == 0 {
		formats = Formats()
	}
	var files []dirFile
	for _, f := range formats {
		row, ok := f.lookup()
		if !ok {
			return fmt.Errorf("reports: unknown format %q (want %s)", Visible(string(f), nameMax), formatList())
		}
		if asked(files, f) {
			continue
		}
		data, err := row.render(r)
		if err != nil {
			return fmt.Errorf("reports: rendering %s: %w", f, err)
		}
		files = append(files, dirFile{format: f, data: data})
	}
	_, err = writeSet(ctx, dir, files, osFS)
	return err
}

// A dirFile is a rendered file waiting to be written.
type dirFile struct {
	format Format
	data   []byte
}

// asked reports whether files hold one of format f.
func asked(files []dirFile, f Format) bool {
	return slices.ContainsFunc(files, func(d dirFile) bool { return d.format == f })
}

// fsOps are the operations of writeSet that a test makes fail part-way.
type fsOps struct {
	write  func(w io.Writer, data []byte) error // fills a new file
	rename func(from, to string) error
}

var osFS = fsOps{write: copyData, rename: os.Rename}

// clearDir removes from dir the report that WriteDir wrote there, so that
// an earlier run's report is not taken for the outcome of a run that has
// none, and returns the formats it removed, in the order of Formats. It is
// WriteDir with no files: only the report files go, and dir stays.
func clearDir(ctx context.Context, dir string) ([]Format, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return writeSet(ctx, dir, nil, osFS)
}

// writeSet puts files in dir in place of the report there, as WriteDir
// documents, and returns the formats of the report files it found there.
func writeSet(ctx context.Context, dir string, files []dirFile, ops fsOps) ([]Format, error) {
	fi, err := os.Stat(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err // a *fs.PathError, which names dir
	}
	if fi != nil && !fi.IsDir() {
		return nil, &fs.PathError{Op: "write", Path: dir, Err: syscall.ENOTDIR}
	}
	old, only, err := inspect(dir, files)
	if err != nil {
		return nil, err
	}
	if only && !workDir(fi) {
		if err := swapDir(ctx, dir, fi, files, ops); !errors.Is(err, errNoSwap) {
			return old, err
		}
	}
	return old, replaceEach(ctx, dir, files, old, ops)
}

// workDir reports whether fi, nil for a missing directory, is or may be
// the working directory, which a rename would leave the process in.
func workDir(fi fs.FileInfo) bool {
	wd, err := os.Stat(".")
	return fi != nil && (err != nil || os.SameFile(wd, fi))
}

// inspect returns the formats of the report files in dir, in the order of
// Formats, and whether dir holds nothing else. Its error names a file that
// one of files would replace and that is not a report file. A file that
// goes while inspect looks, as another writer renames dir, is none.
func inspect(dir string, files []dirFile) (old []Format, only bool, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	others := len(entries)
	for _, row := range dirFormats {
		ours, err := reportFile(filepath.Join(dir, string(row.file)), row)
		if err != nil && asked(files, row.file) {
			return nil, false, err
		}
		if ours {
			old = append(old, row.file)
		}
		if err == nil && slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == string(row.file) }) {
			others--
		}
	}
	return old, others == 0, nil
}

// errNoSwap is swapDir's error when a new directory cannot stand in for
// dir; nothing has changed.
var errNoSwap = errors.New("reports: the directory cannot be replaced whole")

// swapDir writes files into a new hidden directory beside dir, which fi
// describes (nil when it is missing), and gives it dir's name.
func swapDir(ctx context.Context, dir string, fi fs.FileInfo, files []dirFile, ops fsOps) error {
	path, stage, err := stageDir(dir, fi)
	if err != nil {
		return err
	}
	for _, f := range files {
		t, err := os.OpenFile(filepath.Join(stage, string(f.format)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			err = fill(t, f.data, 0o644, ops.write)
		}
		if err != nil {
			os.RemoveAll(stage)
			return &fs.PathError{Op: "write", Path: filepath.Join(dir, string(f.format)), Err: pathErr(err)}
		}
	}
	err = syncDir(stage)
	if err == nil && ctx.Err() != nil {
		err = &fs.PathError{Op: "write", Path: dir, Err: ctx.Err()}
	}
	var asides []string
	if err == nil {
		asides, err = place(stage, path, ops.rename)
	}
	if err != nil {
		os.RemoveAll(stage)
		return err
	}
	return errors.Join(discard(asides), syncDir(filepath.Dir(path)))
}

// stageDir makes the hidden directory beside dir, which fi describes (nil
// when it is missing), with dir's mode, and returns it with the absolute
// path of dir through its links. Its error is errNoSwap when the new
// directory cannot stand in for dir.
func stageDir(dir string, fi fs.FileInfo) (path, stage string, err error) {
	path = filepath.Clean(dir)
	if fi != nil {
		path, err = filepath.EvalSymlinks(path)
	}
	if errors.Is(err, fs.ErrNotExist) || fi == nil {
		fi, path = nil, filepath.Clean(dir) // missing, or renamed by another writer meanwhile
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err == nil {
		path, err = filepath.Abs(path)
	}
	if err != nil {
		return "", "", err
	}
	stage = filepath.Join(filepath.Dir(path), strings.Replace(tempName(filepath.Base(path)), "*", rand.Text(), 1))
	if err := os.Mkdir(stage, 0o755); err != nil {
		if fi != nil {
			return "", "", errNoSwap // dir may be writable where its parent is not
		}
		return "", "", &fs.PathError{Op: "mkdir", Path: dir, Err: pathErr(err)}
	}
	if fi != nil {
		err = os.Chmod(stage, fi.Mode()&(fs.ModePerm|fs.ModeSetgid|fs.ModeSticky))
		if si, serr := os.Stat(stage); err != nil || serr != nil || !standsIn(si, fi, path) {
			os.Remove(stage)
			return "", "", errNoSwap
		}
	}
	return path, stage, nil
}

// place renames stage to path, first renaming aside the directory there,
// as many times as other writers put theirs in its place meanwhile, and
// returns the directories renamed aside. When the rename fails, the last
// of them is put back; should that fail too, the error names it.
func place(stage, path string, rename func(from, to string) error) ([]string, error) {
	var asides []string
	for {
		err := rename(stage, path)
		if errors.Is(err, fs.ErrExist) {
			aside := fmt.Sprintf("%s.%d.old", strings.TrimSuffix(stage, ".tmp"), len(asides))
			if err = rename(path, aside); err == nil {
				asides = append(asides, aside)
			}
			if err == nil || errors.Is(err, fs.ErrNotExist) {
				continue // try again, in the place of whatever is there now
			}
		}
		switch {
		case err == nil:
			return asides, nil
		case len(asides) == 0 && errors.Is(err, syscall.EBUSY):
			return nil, errNoSwap // a mount point
		case len(asides) == 0:
			return nil, err
		}
		last := asides[len(asides)-1]
		if rerr := rename(last, path); rerr != nil {
			return nil, fmt.Errorf("reports: %w; the previous report is kept in %s, as putting it back failed too: %w", err, last, rerr)
		}
		return nil, fmt.Errorf("reports: %w (the previous report is left whole)", err)
	}
}

// discard removes the directories place renamed aside, with the report
// files in them. One that holds anything else, put there while WriteDir
// worked, is kept, and the error names it.
func discard(asides []string) error {
	var errs []error
	for _, a := range asides {
		for _, row := range dirFormats {
			if ours, _ := reportFile(filepath.Join(a, string(row.file)), row); ours {
				os.Remove(filepath.Join(a, string(row.file)))
			}
		}
		if err := os.Remove(a); err != nil {
			errs = append(errs, fmt.Errorf("reports: the previous report's directory is kept as %s: %w", a, err))
		}
	}
	return errors.Join(errs...)
}

// replaceEach writes files into dir file by file, as WriteDir documents,
// then removes the report files of old that files do not replace.
func replaceEach(ctx context.Context, dir string, files []dirFile, old []Format, ops fsOps) error {
	temps := make([]string, len(files))
	defer func() {
		for _, t := range temps {
			if t != "" {
				os.Remove(t)
			}
		}
	}()
	for i, f := range files {
		t, err := writeTemp(dir, string(f.format), f.data, 0o644, ops.write)
		if err != nil {
			return err
		}
		temps[i] = t
	}
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "write", Path: dir, Err: err}
	}
	for i, f := range files {
		if err := ops.rename(temps[i], filepath.Join(dir, string(f.format))); err != nil {
			return err // a *os.LinkError, which names both
		}
		temps[i] = ""
	}
	for _, f := range old {
		if asked(files, f) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, string(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return syncDir(dir)
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
	if fi.Mode().IsRegular() {
		head, err := readHead(path)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil // gone meanwhile
		}
		if err != nil || f.written(head) {
			return err == nil, err
		}
	}
	what, ok := kinds[fi.Mode().Type()&^fs.ModeCharDevice]
	if !ok {
		what = "not a regular file"
	}
	return false, &fs.PathError{Op: "replace", Path: path, Err: fmt.Errorf("%w: it is %s, which a report never replaces; nothing was written", errNotReport, what)}
}

// kinds name the kinds of files that reportFile refuses.
var kinds = map[fs.FileMode]string{
	0:                "a file that is not a jitterkit report",
	fs.ModeDir:       "a directory",
	fs.ModeSymlink:   "a symbolic link",
	fs.ModeNamedPipe: "a named pipe",
	fs.ModeSocket:    "a socket",
	fs.ModeDevice:    "a device",
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
