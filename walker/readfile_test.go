package walker

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"golang.org/x/sys/unix"
)

func TestReadFilesReadsOnlyRegularFilesNeverThroughALink(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tree    []string
		want    FileRead
		missing bool // ReadFiles answers nil: no directory
		err     bool
	}{
		{"a regular file is read whole", []string{"sub/f=hello"}, FileRead{Data: []byte("hello")}, false, false},
		{"an empty file is read, not missing", []string{"sub/f="}, FileRead{Data: []byte{}}, false, false},
		{"at the limit is read", []string{"sub/f=12345678"}, FileRead{Data: []byte("12345678")}, false, false},
		{"over the limit is never read", []string{"sub/f=123456789"}, FileRead{Reason: anomaly.Oversize}, false, false},
		{"a missing file is missing", []string{"sub/other"}, FileRead{Missing: true}, false, false},
		{"a link is never followed", []string{"sub/t=secret", "sub/f -> t"}, FileRead{Reason: anomaly.Symlink}, false, false},
		{"a dangling link is a link, not missing", []string{"sub/f -> nowhere"}, FileRead{Reason: anomaly.Symlink}, false, false},
		{"a FIFO is never opened", []string{"sub/f|"}, FileRead{Reason: anomaly.Special}, false, false},
		{"a directory is not a file", []string{"sub/f/"}, FileRead{Reason: anomaly.Special}, false, false},
		{"no sub: every name missing", []string{"x"}, FileRead{}, true, false},
		{"a sub that is a link is never followed", []string{"real/f=secret", "sub -> real"}, FileRead{}, false, true},
		{"a sub that is a file is refused", []string{"sub=text"}, FileRead{}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, tc.tree...)
			got, err := ReadFiles(dir, "sub", []string{"f"}, 8)
			if tc.err != (err != nil) {
				t.Fatalf("error %v, want error %v", err, tc.err)
			}
			if tc.err || tc.missing {
				if got != nil {
					t.Fatalf("read %+v, want nothing", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("read %d files, want 1", len(got))
			}
			g := got[0]
			if g.Missing != tc.want.Missing || g.Reason != tc.want.Reason || string(g.Data) != string(tc.want.Data) || (g.Data == nil) != (tc.want.Data == nil) {
				t.Fatalf("read %+v, want %+v", g, tc.want)
			}
		})
	}
}

func TestReadFilesOfAMissingDirectoryReadsNothing(t *testing.T) {
	got, err := ReadFiles(filepath.Join(t.TempDir(), "none"), "sub", []string{"f"}, 8)
	if got != nil || err != nil {
		t.Fatalf("read %+v, %v", got, err)
	}
}

// A file that grew past the limit after it was looked at is still never
// read. The size of the descriptor opened is checked too.
func TestReadWholeRefusesAFileGrownSinceItWasLookedAt(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "f=small")
	var want unix.Stat_t
	testtree.Must(t, unix.Lstat(filepath.Join(dir, "f"), &want))
	testtree.Must(t, os.WriteFile(filepath.Join(dir, "f"), []byte("now far over the limit"), 0o644))
	dfd, err := openDirPath(dir)
	testtree.Must(t, err)
	defer closeFD(dfd)
	if data, missing, r := readWhole(dfd, znameOf([]byte("f")), false, &want, 8); r != anomaly.Oversize || data != nil || missing {
		t.Fatalf("read %q, missing %v, reason %v", data, missing, r)
	}
}
