package reports

import (
	"errors"
	"io/fs"
	"syscall"
)

// standsIn reports whether the new directory stage, made beside the
// directory old at path, stands in for it whole once given its mode: it is
// on the same file system (old is no mount point), has the same owner and
// group, and old carries no extended attributes, such as an ACL or a
// security label, that stage would lack. A directory gone meanwhile,
// renamed away by another writer, has nothing to lose.
func standsIn(stage, old fs.FileInfo, path string) bool {
	s, sok := stage.Sys().(*syscall.Stat_t)
	o, ook := old.Sys().(*syscall.Stat_t)
	if !sok || !ook || s.Dev != o.Dev || s.Uid != o.Uid || s.Gid != o.Gid {
		return false
	}
	n, err := syscall.Listxattr(path, nil)
	return err == nil && n == 0 || errors.Is(err, fs.ErrNotExist) // gone, renamed by another writer
}
