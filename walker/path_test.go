package walker

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
)

func TestDotPathsResolveOnlyOnArrivalEvidence(t *testing.T) {
	top := t.TempDir()
	testtree.Make(t, top, "cwd/child/", "other/", "link -> cwd")
	cwd := filepath.Join(top, "cwd")
	old, err := os.Getwd()
	testtree.Must(t, err)
	testtree.Must(t, os.Chdir(cwd))
	defer os.Chdir(old)

	cases := []struct {
		arg, pwd string
		pwdSet   bool
		dir      string
		name     string // "" means refused
	}{
		{".", cwd, true, top, "cwd"},
		{"./", cwd, true, top, "cwd"},
		{"child/..", cwd, true, top, "cwd"},
		{"..", cwd, true, "", ""},
		{"child/../..", cwd, true, "", ""},
		{".", cwd, false, "", ""},
		{".", "relative", true, "", ""},
		{".", filepath.Join(top, "link"), true, "", ""},  // a symlinked $PWD
		{".", filepath.Join(top, "other"), true, "", ""}, // $PWD is not the cwd
		{"", cwd, true, "", ""},
		{"/", cwd, true, "", ""},
		{"child", cwd, true, ".", "child"},
		{"child/", cwd, true, ".", "child"},
		{"./child", cwd, true, ".", "child"},
		{"/abs/skill", cwd, true, "/abs", "skill"},
		{"/skill", cwd, true, "/", "skill"},
	}
	for _, tc := range cases {
		dir, name, err := SplitArg(tc.arg, tc.pwd, tc.pwdSet)
		if tc.name == "" {
			if !errors.Is(err, ErrRefused) {
				t.Errorf("SplitArg(%q, PWD=%q set=%v) = %q %q, %v; want refused", tc.arg, tc.pwd, tc.pwdSet, dir, name, err)
			}
			continue
		}
		if err != nil || dir != tc.dir || string(name) != tc.name {
			t.Errorf("SplitArg(%q, PWD=%q) = %q %q, %v; want %q %q", tc.arg, tc.pwd, dir, name, err, tc.dir, tc.name)
		}
	}
}

func TestDeletedWorkingDirectoryRefusesDot(t *testing.T) {
	top := t.TempDir()
	gone := filepath.Join(top, "gone")
	testtree.Must(t, os.Mkdir(gone, 0o755))
	old, err := os.Getwd()
	testtree.Must(t, err)
	testtree.Must(t, os.Chdir(gone))
	defer os.Chdir(old)
	testtree.Must(t, os.Remove(gone))
	if _, _, err := SplitArg(".", gone, true); !errors.Is(err, ErrRefused) {
		t.Fatalf("deleted cwd: %v", err)
	}
}

func TestMissingPathIsARootAnomaly(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "nope"), filepath.Join(dir, "nope/deeper")} {
		d, name, err := SplitArg(p, "", false)
		testtree.Must(t, err)
		c := observe(t, d, string(name), Config{})
		if !hasAnomaly(&c, anomaly.Root, "") {
			t.Fatalf("%s: %v", p, reasonsOf(c.Anomalies()))
		}
	}
}
