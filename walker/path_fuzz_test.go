package walker

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
	"golang.org/x/sys/unix"
)

func FuzzSplitArg(f *testing.F) {
	top := f.TempDir()
	testtree.Make(f, top, "cwd/child/", "other/", "link -> cwd", "cwd/up -> ..")
	cwd := filepath.Join(top, "cwd")
	f.Chdir(cwd)
	for _, s := range []struct {
		arg, pwd string
		set      bool
	}{
		{".", cwd, true}, {"./", cwd + "/", true}, {"child/..", cwd, true}, {"..", cwd, true},
		{".", cwd + "/.", true}, {".", cwd + "/child/..", true}, {".", cwd + "/up/cwd", true},
		{".", filepath.Join(top, "link"), true}, {".", "relative", true}, {".", cwd, false},
		{"", cwd, true}, {"/", cwd, true}, {"//", "", false}, {"child", cwd, true},
		{"a//b/", "", false}, {"//b", "", false}, {"./x", "", false}, {"/abs/\x1b[2J", "", false},
		{cwd + "/child/../../cwd", cwd, true}, {"x/./", "", false}, {"\x00", "", false},
	} {
		f.Add(s.arg, s.pwd, s.set)
	}
	f.Fuzz(func(t *testing.T, arg, pwd string, pwdSet bool) {
		dir, name, err := SplitArg(arg, pwd, pwdSet)
		if err != nil {
			if !errors.Is(err, ErrRefused) || dir != "" || name != nil {
				t.Fatalf("SplitArg(%q, %q, %v) = %q, %q, %v", arg, pwd, pwdSet, dir, name, err)
			}
			// The refusal is printed: it must carry none of the input.
			for _, c := range []byte(err.Error()) {
				if c < 0x20 || c > 0x7e {
					t.Fatalf("refusal %q carries a byte of the input", err)
				}
			}
			return
		}
		n := string(name)
		if dir == "" || n == "" || n == "." || n == ".." || strings.Contains(n, "/") {
			t.Fatalf("SplitArg(%q, %q, %v) = %q, %q: not a directory and a name", arg, pwd, pwdSet, dir, n)
		}
		// Nothing is normalized: the result spells the argument, or $PWD
		// when the argument has dot components, less trailing slashes.
		src := arg
		if hasDots(arg) {
			src = pwd
			if !pwdSet || !strings.HasPrefix(pwd, "/") {
				t.Fatalf("SplitArg(%q, %q, %v) resolved dots without an absolute $PWD", arg, pwd, pwdSet)
			}
			if !sameAsCwd(t, dir+"/"+n) {
				t.Fatalf("SplitArg(%q, %q) = %q, %q: not the working directory", arg, pwd, dir, n)
			}
		}
		p := strings.TrimRight(src, "/")
		if p != dir+"/"+n && !(dir == "/" && p == "/"+n) && !(dir == "." && p == n) {
			t.Fatalf("SplitArg(%q, %q) = %q, %q: does not spell %q", arg, pwd, dir, n, p)
		}
	})
}

func hasDots(arg string) bool {
	comps := strings.Split(strings.TrimRight(arg, "/"), "/")
	return comps[len(comps)-1] == "." || strings.Contains("/"+arg+"/", "/../")
}

func sameAsCwd(t *testing.T, p string) bool {
	var a, b unix.Stat_t
	if err := unix.Stat(".", &a); err != nil {
		t.Fatal(err)
	}
	return unix.Stat(p, &b) == nil && sameFile(&a, &b)
}
