package reports_test

import "syscall"

// mknod makes a character device with Linux's numbering.
func mknod(path string, major, minor uint32) error {
	return syscall.Mknod(path, syscall.S_IFCHR|0o666, int(major<<8|minor))
}
