//go:build unix && !linux

package reports_test

import "errors"

// mknod makes no device where the numbering of devices differs from
// Linux's: the tests use the machine's own.
func mknod(path string, major, minor uint32) error {
	return errors.New("no mknod here")
}
