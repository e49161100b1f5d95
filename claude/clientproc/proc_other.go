//go:build !linux

package clientproc

// procDir: this system has no /proc (macOS), so the folders a session
// added cannot be read from the client's command line; the session is told.
const procDir = ""
