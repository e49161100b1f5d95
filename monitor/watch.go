package monitor

import (
	"github.com/fsnotify/fsnotify"
)

// Watcher is what the daemon needs of fsnotify. Tests substitute one that
// injects overflows and watch-limit errors. monitor is the only importer
// of fsnotify.
type Watcher interface {
	Add(path string) error
	Remove(path string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	// WatchList is what is watched now. fsnotify drops the watch of a
	// directory deleted or moved.
	WatchList() []string
	Close() error
}
