package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestQuietGCIsBoundedAndRestoresPacing: the session start's collector is
// off only up to the limit. The first collection gives back the process's
// own GOGC and GOMEMLIMIT. So a huge tree is collected as before.
func TestQuietGCIsBoundedAndRestoresPacing(t *testing.T) {
	oldPercent := debug.SetGCPercent(150)
	oldLimit := debug.SetMemoryLimit(1 << 40)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})
	restored := quietGC(hookHeapLimit)
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("the collector is on (GOGC %d) during the session start", p)
	}
	if l := debug.SetMemoryLimit(-1); l != hookHeapLimit {
		t.Fatalf("memory limit %d during the session start, want %d: the heap is unbounded", l, hookHeapLimit)
	}
	select {
	case <-restored:
		t.Fatal("pacing restored before any collection")
	default:
	}
	runtime.GC()
	<-restored
	if p := debug.SetGCPercent(150); p != 150 {
		t.Fatalf("GOGC %d after the first collection, want the process's 150", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 1<<40 {
		t.Fatalf("memory limit %d after the first collection, want the process's %d", l, int64(1<<40))
	}
}

// TestQuietGCLimitIsACollection: allocating past the limit forces the
// collection that restores the pacing; nothing else is needed.
func TestQuietGCLimitIsACollection(t *testing.T) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	restored := quietGC(int64(ms.Sys) + 8<<20)
	for range 4096 {
		select {
		case <-restored:
			if p := debug.SetGCPercent(100); p != 100 {
				t.Fatalf("GOGC %d after the limit's collection, want 100", p)
			}
			return
		default:
		}
		gcSink = make([]byte, 1<<20)
		runtime.Gosched()
	}
	t.Fatal("4 GiB allocated past a limit of 8 MiB and the pacing was never restored")
}

var gcSink []byte
