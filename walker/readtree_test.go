package walker

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
)

var treeLimits = TreeLimits{MaxFiles: 8, MaxBytes: 64, MaxDepth: 3}

func TestReadTreeReadsEveryFileAndFollowsNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		specs []string
		want  anomaly.Reason
		files []string
	}{
		{"files and folders", []string{"a=1", "d/b=2", "d/e/c=3", "skip/x=9"}, 0, []string{"a", "d/b", "d/e/c"}},
		{"a link", []string{"a -> /etc/passwd"}, anomaly.Symlink, nil},
		{"a link to a folder", []string{"d -> /etc"}, anomaly.Symlink, nil},
		{"a link Link admits", []string{"ok/l -> ../../x"}, 0, []string{"ok/l"}},
		{"a FIFO", []string{"p|"}, anomaly.Special, nil},
		{"too many files", []string{"1=", "2=", "3=", "4=", "5=", "6=", "7=", "8=", "9="}, anomaly.Fanout, nil},
		{"too many bytes", []string{"a=" + strings.Repeat("x", 40), "b=" + strings.Repeat("x", 40)}, anomaly.Oversize, nil},
		{"one file too big", []string{"a=" + strings.Repeat("x", 65)}, anomaly.Oversize, nil},
		{"too deep", []string{"1/2/3/4/f="}, anomaly.Depth, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, tc.specs...)
			files, r, err := ReadTree(dir, TreeConfig{Limits: treeLimits,
				Skip: func(p string) bool { return p == "skip" },
				Link: func(p string) bool { return strings.HasPrefix(p, "ok/") }})
			if err != nil || r != tc.want {
				t.Fatalf("ReadTree: %v, %v; want %v", r, err, tc.want)
			}
			var got []string
			for _, f := range files {
				got = append(got, f.Path)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.files) {
				t.Errorf("files %q, want %q", got, tc.files)
			}
			if tc.name == "a link Link admits" && (!files[0].Link || string(files[0].Data) != "../../x") {
				t.Errorf("the link read as %+v, want its target", files[0])
			}
		})
	}
	if _, _, err := ReadTree(t.TempDir()+"/none", TreeConfig{Limits: treeLimits}); err == nil {
		t.Error("a missing folder is no error")
	}
}
