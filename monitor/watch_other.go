//go:build !linux

package monitor

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrNoSafeWatcher: fsnotify's kqueue backend (macOS, the BSDs) opens every
// file of a watched directory and follows symbolic links to watch their
// targets, and an open without O_NONBLOCK of a FIFO can block. skillwire
// never opens what its walker has not proven, so it does not watch there;
// the hook walks at every session instead.
var ErrNoSafeWatcher = errors.New("the daemon needs Linux's inotify: fsnotify's kqueue backend would open every file in the watched trees and follow their symbolic links")

// NewWatcher refuses: see ErrNoSafeWatcher.
func NewWatcher() (Watcher, error) { return nil, WatchSupported() }

// WatchSupported reports whether this system has a watcher the daemon may
// use.
func WatchSupported() error { return fmt.Errorf("%w (on %s)", ErrNoSafeWatcher, runtime.GOOS) }
