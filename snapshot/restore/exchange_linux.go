package restore

import "golang.org/x/sys/unix"

const canExchange = true

// exchange swaps two names of one directory atomically. At every instant
// each name holds one whole tree.
func exchange(dirfd int, a, b string) error {
	return unix.Renameat2(dirfd, a, dirfd, b, unix.RENAME_EXCHANGE)
}
