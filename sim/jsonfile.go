package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// jsonHead is how the JSON WriteJSON writes begins.
var jsonHead = []byte("{\n  \"schema\": \"jitterkit.replay/")

// CheckJSONPath refuses a path that writing a replay's JSON to would
// destroy what someone else wrote: a directory, or a regular file that is
// not empty and does not begin as a replay's JSON (see Result.WriteJSON),
// such as the exec policy's own script. An absent file, an empty one, a
// replay's JSON, a device or a FIFO are accepted; what else is wrong with
// path shows when it is written.
func CheckJSONPath(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil
	case fi.IsDir():
		return fmt.Errorf("%s is a directory; name a file", path)
	case !fi.Mode().IsRegular() || fi.Size() == 0:
		return nil
	}
	ours, err := isReplayJSON(path)
	if err != nil {
		return fmt.Errorf("%s cannot be read to see that it is a replay's JSON, which alone is replaced: %w", path, err)
	}
	if !ours {
		return fmt.Errorf("%s holds a file that is not a replay's JSON, which is never replaced; write it elsewhere", path)
	}
	return nil
}

// RemoveJSON removes the replay's JSON at path, so that an earlier run's
// figures are not taken for a later run's that wrote none: the regular
// file at the end of path's links, when it begins as a replay's JSON. It
// reports whether there was one. A device, a FIFO, an empty file or any
// other file is left as it is.
func RemoveJSON(path string) (bool, error) {
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // absent, or a link that dangles
	}
	if err != nil {
		return false, err
	}
	if fi, err := os.Lstat(target); err != nil || !fi.Mode().IsRegular() {
		return false, err
	}
	if ours, err := isReplayJSON(target); err != nil || !ours {
		return false, err
	}
	return true, os.Remove(target)
}

// isReplayJSON reports whether the file at path begins as a replay's JSON.
func isReplayJSON(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(jsonHead))
	n, _ := io.ReadFull(f, head)
	return bytes.Equal(head[:n], jsonHead), nil
}
