//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd

package walker

// The walker proves every step with openat, O_NOFOLLOW and fstat, which
// this system does not have. Building here fails on purpose, naming why.
// The file's name sorts first, so the compiler reports it early.
var _ = skillwire_needs_linux_or_macos_openat_and_O_NOFOLLOW
