//go:build !linux

package restore

// Without an atomic exchange, a restore could leave a half-made candidate.
// So check refuses it, before anything is written.
const canExchange = false

func exchange(dirfd int, a, b string) error { return ErrUnsupported }
