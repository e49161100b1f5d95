//go:build !linux

package monitor

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrNoSafeWatcher: fsnotify's kqueue backend (macOS, the BSDs) opens every
// file of a watched directory. It follows symbolic links to watch their
// targets. Its open of a FIFO, without O_NONBLOCK, can block. skillwire
// never opens what its walker has not proven. So it does not watch there:
// the hook walks at every session instead.
var ErrNoSafeWatcher = errors.New("the daemon needs Linux's inotify: fsnotify's kqueue backend would open every file in the watched trees and follow their symbolic links")

// NewWatcher refuses: see ErrNoSafeWatcher.
func NewWatcher() (Watcher, error) { return nil, WatchSupported() }

// WatchSupported reports whether the daemon may watch on this system.
func WatchSupported() error { return fmt.Errorf("%w (on %s)", ErrNoSafeWatcher, runtime.GOOS) }
