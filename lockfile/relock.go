package lockfile

import (
	"errors"
	"fmt"
	"io/fs"
)

// ErrPrevious: the lock already at the target cannot be read. So the verdicts
// it may hold cannot be carried over, and Relock writes nothing.
var ErrPrevious = errors.New("lockfile: the existing lock cannot be read, and the verdicts it may hold would be lost")

// Relock writes l over the lock at path and returns the verdicts it dropped.
// It keeps each verdict of the old lock whose candidate is unchanged
// (KeepVerdicts). A missing lock is simply written. A lock that exists and
// cannot be read is never replaced (ErrPrevious). A person's verdicts are not
// thrown away for a parse error. A path that is not a regular file wraps
// ErrNotRegular, as WriteFile does.
func Relock(path string, l *Lock) ([]Ref, error) {
	var dropped []Ref
	prev, err := ReadFile(path)
	switch {
	case err == nil:
		dropped = l.KeepVerdicts(prev)
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, ErrNotRegular):
		return nil, err
	default:
		return nil, fmt.Errorf("%w: %w", ErrPrevious, err)
	}
	data, err := l.Marshal()
	if err != nil {
		return nil, err
	}
	if err := WriteFile(path, data); err != nil {
		return nil, err
	}
	return dropped, nil
}
