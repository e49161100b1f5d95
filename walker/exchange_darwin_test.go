package walker

import "golang.org/x/sys/unix"

// exchange swaps two paths atomically, for the race tests.
func exchange(a, b string) error {
	return unix.RenamexNp(a, b, unix.RENAME_SWAP)
}
