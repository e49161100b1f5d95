//go:build unix

package walker

import (
	"io/fs"
	"testing"

	"github.com/skillwire/skillwire/internal/safefile"
	"golang.org/x/sys/unix"
)

// TestADirentTypeReadsAsItsStatModeType: the walker reads a listed d_type
// through safefile's table, so it must be the mode's type bits shifted.
func TestADirentTypeReadsAsItsStatModeType(t *testing.T) {
	for _, c := range []struct {
		name  string
		dt    uint8
		mode  uint32
		wantT fs.FileMode
	}{
		{"regular", unix.DT_REG, unix.S_IFREG, 0},
		{"dir", unix.DT_DIR, unix.S_IFDIR, fs.ModeDir},
		{"symlink", unix.DT_LNK, unix.S_IFLNK, fs.ModeSymlink},
		{"fifo", unix.DT_FIFO, unix.S_IFIFO, fs.ModeNamedPipe},
		{"socket", unix.DT_SOCK, unix.S_IFSOCK, fs.ModeSocket},
		{"char device", unix.DT_CHR, unix.S_IFCHR, fs.ModeDevice | fs.ModeCharDevice},
		{"block device", unix.DT_BLK, unix.S_IFBLK, fs.ModeDevice},
		{"unknown", unix.DT_UNKNOWN, 0, fs.ModeIrregular},
	} {
		if got, st := direntType(c.dt), safefile.ModeType(c.mode); got != c.wantT || st != c.wantT {
			t.Errorf("%s: d_type %d reads %v, its stat mode %v; want %v", c.name, c.dt, got, st, c.wantT)
		}
	}
}
