package walker

import "golang.org/x/sys/unix"

// exchange swaps two paths atomically, for the race tests.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
