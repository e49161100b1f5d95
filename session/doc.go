// Package session runs a Claude Code session start end to end (Run): it
// decides what the session is told and which observations it may take
// from the daemon instead of walking, and it records what was told only
// once it was delivered (Deliver, the one delivery path). Both decisions
// are policy every entry point shares (the hook, and soon the gate): the
// advisory's text is what a delivery consumes from the store, and the
// cache's trust decides whether the bytes judged are the bytes on disk.
package session
