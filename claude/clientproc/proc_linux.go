package clientproc

// procDir is the proc filesystem, where a hook reads the client's command
// line.
const procDir = "/proc"
