package reports

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// A Format is one of the report's files.
type Format string

// The formats WriteDir writes, by the name of their file.
const (
	JSON     Format = "report.json"
	Markdown Format = "report.md"
	HTML     Format = "report.html"
	JUnit    Format = "junit.xml"
)

// Formats returns the four formats, in the order WriteDir writes them.
func Formats() []Format { return []Format{JSON, Markdown, HTML, JUnit} }

// render returns the renderer of f, or nil.
func (f Format) render() func(Report) ([]byte, error) {
	switch f {
	case JSON:
		return renderJSON
	case Markdown:
		return renderMarkdown
	case HTML:
		return renderHTML
	case JUnit:
		return renderJUnit
	}
	return nil
}

// WriteDir writes r into dir, created if missing, as the files of the given
// formats, or of all four when none is given.
//
// The files are written atomically: every format is rendered first, then
// each is written to a temporary file in dir and synced, and only when all
// are written are they renamed over the old ones. A report that cannot be
// rendered, a failed write or an interrupted run therefore leaves the
// previous files, or none, never half of one.
func WriteDir(dir string, r Report, formats ...Format) error {
	r, err := prepare(r)
	if err != nil {
		return err
	}
	if len(formats) == 0 {
		formats = Formats()
	}
	files := make([]dirFile, 0, len(formats))
	for _, f := range formats {
		render := f.render()
		if render == nil {
			return fmt.Errorf("reports: unknown format %q (want %s, %s, %s or %s)", f, JSON, Markdown, HTML, JUnit)
		}
		data, err := render(r)
		if err != nil {
			return fmt.Errorf("reports: rendering %s: %w", f, err)
		}
		files = append(files, dirFile{name: string(f), data: data})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err // a *fs.PathError, which names dir
	}
	return writeFiles(dir, files, copyData)
}

// A dirFile is a rendered file waiting to be written.
type dirFile struct {
	name string
	data []byte
}

// writeFiles writes files into dir atomically, copying each one's data into
// its temporary file with put.
func writeFiles(dir string, files []dirFile, put func(io.Writer, []byte) error) (err error) {
	temps := make([]string, 0, len(files))
	defer func() {
		if err != nil {
			for _, t := range temps {
				os.Remove(t)
			}
		}
	}()
	for _, f := range files {
		t, err := os.CreateTemp(dir, "."+f.name+".*.tmp")
		if err != nil {
			// Name the file the caller asked for, not the temporary one.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return &fs.PathError{Op: "create", Path: filepath.Join(dir, f.name), Err: err}
		}
		temps = append(temps, t.Name())
		err = put(t, f.data)
		if err == nil {
			err = t.Chmod(0o644)
		}
		if err == nil {
			err = t.Sync()
		}
		if cerr := t.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("reports: writing %s: %w", filepath.Join(dir, f.name), err)
		}
	}
	for i, f := range files {
		if err := os.Rename(temps[i], filepath.Join(dir, f.name)); err != nil {
			return fmt.Errorf("reports: %w", err)
		}
	}
	temps = nil
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("reports: syncing %s: %w", dir, err)
	}
	return nil
}
