// Package session runs a Claude Code session start end to end (RunHook,
// Run). It decides what the session is told. It decides which
// observations it may take from the daemon instead of walking. It records
// what was told only once it was delivered (Deliver, the one delivery
// path). Every entry point shares both decisions. The advisory's text is
// what a delivery consumes from the store. The cache's trust decides
// whether the bytes judged are the bytes on disk.
package session
