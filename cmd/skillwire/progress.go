package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// progressDelay is how long a scan runs before it shows progress at all.
const progressDelay = 300 * time.Millisecond

// startProgress shows a count of observed entries on w. It shows it only
// on a terminal, once the scan takes longer than a moment. The func
// returned stops and erases it.
func startProgress(w io.Writer, n *atomic.Int64) func() {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(progressDelay)
		defer t.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(f, "\r\033[K")
				}
				return
			case <-t.C:
				fmt.Fprintf(f, "\rscanning: %d entries observed", n.Load())
				shown = true
				t.Reset(100 * time.Millisecond)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	return err == nil
}
