package helperbin

import (
	"fmt"
	"os"
)

// runPath is the path that runs the open file f itself: its descriptor in
// /proc. The child inherits f until its exec, which opens the file through
// it (fexecve). A helper swapped in the folder after the proof never runs.
func runPath(f *os.File) (string, error) {
	p := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("it cannot be run from the file proven, /proc is not there: %w", err)
	}
	return p, nil
}
