package lockfile

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillwire/skillwire/internal/safefile"
)

// MaxSize bounds a lock file. It is far above the lock of a full default scan
// budget (100,000 entries). It is far below what would exhaust a CI runner.
const MaxSize = 256 << 20

// ReadFile reads and parses the lock at path. The file must be a regular
// file. It is opened without following a link and without blocking: a FIFO
// planted as the lock must not hang CI. A missing file wraps fs.ErrNotExist.
func ReadFile(path string) (*Lock, error) {
	data, _, err := safefile.Read(path, MaxSize, safefile.Trust{})
	if err != nil {
		return nil, fileErr(err)
	}
	return Parse(data)
}

// WriteFile replaces the file at path with data atomically. The mode is 0644:
// a lock is committed and read by everyone. A reader sees the old lock or the
// new one, never part of either. It refuses a path that exists and is not a
// regular file (a link, a directory, a FIFO). Replacing it would not do what
// was asked.
func WriteFile(path string, data []byte) error {
	return fileErr(safefile.Write(path, data, 0o644, nil))
}

// fileErr gives safefile's refusals this package's sentinels.
func fileErr(err error) error {
	var ke *safefile.KindError
	switch {
	case errors.As(err, &ke):
		if ke.Mode&fs.ModeSymlink != 0 {
			return fmt.Errorf("%w: a symbolic link", ErrNotRegular)
		}
		return fmt.Errorf("%w: %s", ErrNotRegular, ke.Mode.Type())
	case errors.Is(err, safefile.ErrNotRegular):
		return fmt.Errorf("%w: %w", ErrNotRegular, err)
	case errors.Is(err, safefile.ErrTooLarge):
		return ErrTooLarge
	}
	return err
}
