package monitor

import "github.com/fsnotify/fsnotify"

// NewWatcher returns an fsnotify (inotify) watcher. fsnotify is not
// recursive and follows symlinks on Add: the daemon adds only directories
// the walker proved, and an event is only ever a reason to re-walk with the
// walker's own rules, so a watch that lands elsewhere can never inject
// content. inotify opens nothing inside a watched directory.
func NewWatcher() (Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return &fsWatcher{w}, nil
}

// WatchSupported reports whether this system has a watcher the daemon may
// use: nil on Linux.
func WatchSupported() error { return nil }

type fsWatcher struct{ w *fsnotify.Watcher }

func (f *fsWatcher) Add(p string) error            { return f.w.Add(p) }
func (f *fsWatcher) Remove(p string) error         { return f.w.Remove(p) }
func (f *fsWatcher) Events() <-chan fsnotify.Event { return f.w.Events }
func (f *fsWatcher) Errors() <-chan error          { return f.w.Errors }
func (f *fsWatcher) WatchList() []string           { return f.w.WatchList() }
func (f *fsWatcher) Close() error                  { return f.w.Close() }
