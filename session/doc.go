// Package session decides what a Claude Code session is told at its start
// and which observations it may take from the daemon instead of walking.
// Both are policy every entry point shares (the hook, and soon the gate):
// the advisory's text is what a delivery consumes from the store, and the
// cache's trust decides whether the bytes judged are the bytes on disk.
package session
