package reports

import "path/filepath"

// paths returns the files WriteDir writes in dir, in the order it writes
// them.
func paths(dir string) []string {
	var out []string
	for _, f := range Formats() {
		out = append(out, filepath.Join(dir, string(f)))
	}
	return out
}
