package monitor

import (
	"github.com/fsnotify/fsnotify"
)

// Watcher is what the daemon needs of fsnotify; tests substitute one that
// injects overflows and watch-limit errors. monitor is the only importer
// of fsnotify.
type Watcher interface {
	Add(path string) error
	Remove(path string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}
