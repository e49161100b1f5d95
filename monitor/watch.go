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

type fsWatcher struct{ w *fsnotify.Watcher }

func (f *fsWatcher) Add(p string) error            { return f.w.Add(p) }
func (f *fsWatcher) Remove(p string) error         { return f.w.Remove(p) }
func (f *fsWatcher) Events() <-chan fsnotify.Event { return f.w.Events }
func (f *fsWatcher) Errors() <-chan error          { return f.w.Errors }
func (f *fsWatcher) Close() error                  { return f.w.Close() }
