package reports

import (
	"fmt"
	"io"
)

// WriteFormat writes r to w as the file of format f, rendered as WriteDir
// renders it, so that the tests of every format can walk Formats.
func WriteFormat(w io.Writer, f Format, r Report) error {
	row, ok := f.lookup()
	if !ok {
		panic(fmt.Sprintf("reports: unknown format %q", f))
	}
	return write(w, r, row.render)
}

// The file helpers, for the tests of the reports_test package.
var (
	WriteFile = writeFile
	ClearDir  = clearDir
	Paths     = paths
)
