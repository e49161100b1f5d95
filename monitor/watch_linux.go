package monitor

import "github.com/fsnotify/fsnotify"

// NewWatcher returns an fsnotify (inotify) watcher. fsnotify is not
// recursive and follows symlinks on Add. So the daemon adds only
// directories the walker proved. An event is only a reason to walk again,
// by the walker's own rules. A watch that lands elsewhere never injects
// content. inotify opens nothing inside a watched directory.
func NewWatcher() (Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return &fsWatcher{w}, nil
}

// WatchSupported reports whether the daemon may watch on this system. On
// Linux it may: nil.
func WatchSupported() error { return nil }

type fsWatcher struct{ w *fsnotify.Watcher }

func (f *fsWatcher) Add(p string) error            { return f.w.Add(p) }
func (f *fsWatcher) Remove(p string) error         { return f.w.Remove(p) }
func (f *fsWatcher) Events() <-chan fsnotify.Event { return f.w.Events }
func (f *fsWatcher) Errors() <-chan error          { return f.w.Errors }
func (f *fsWatcher) WatchList() []string           { return f.w.WatchList() }
func (f *fsWatcher) Close() error                  { return f.w.Close() }
