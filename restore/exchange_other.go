//go:build !linux

package restore

// exchange: without an atomic exchange, a restore could leave a half-made
// candidate; it is refused instead.
func exchange(dirfd int, a, b string) error { return ErrUnsupported }
