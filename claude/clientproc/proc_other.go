//go:build !linux

package clientproc

// procDir: this system has no /proc (macOS). So the folders a session
// added cannot be read from the client's command line. The session is
// told.
const procDir = ""
