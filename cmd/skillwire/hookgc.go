package main

import (
	"runtime"
	"runtime/debug"
)

// hookHeapLimit is the heap a hook runs without the collector (quietGC):
// the session start and the gate's hooks. A quiet one on 100 skills of 20 files allocates about 4 MB
// and exits. The one collection it paid for cost about 1.5 ms of its 15
// (issue 23). A tree that needs more is collected from there on.
const hookHeapLimit = 64 << 20

// quietGC turns the collector off until the heap reaches limit. The first
// collection the limit forces gives back the process's pacing (GOGC,
// GOMEMLIMIT). So a huge or hostile tree is collected as before. It never
// costs unbounded memory. restored is closed once that happened.
func quietGC(limit int64) (restored <-chan struct{}) {
	percent := debug.SetGCPercent(-1)
	memLimit := debug.SetMemoryLimit(limit)
	done := make(chan struct{})
	// A cleanup runs after the first collection that finds its object
	// unreachable: the first collection after this call.
	runtime.AddCleanup(new(gcSentinel), func(struct{}) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(memLimit)
		close(done)
	}, struct{}{})
	return done
}

// gcSentinel holds a pointer so that it is never a tiny allocation. A tiny
// one may share its block with others and outlive the collection.
type gcSentinel struct{ _ *byte }
