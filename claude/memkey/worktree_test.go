package memkey

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A linked worktree's memory is keyed by its main repository too; any
// .git or commondir not read whole, or of another shape, gives top alone.
func TestAWorktreeIsKeyedByItsMainRepositoryToo(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string // relative to the root; "->x" is a link to x
		want  string            // the main folder, relative; "" top alone
	}{
		{"a plain repository", map[string]string{"wt/.git/HEAD": "ref: refs/heads/main\n"}, ""},
		{"relative gitdir", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w\n", "repo/.git/worktrees/w/commondir": "../..\n"}, "repo"},
		{"absolute gitdir", map[string]string{"wt/.git": "gitdir: {root}/repo/.git/worktrees/w\n", "repo/.git/worktrees/w/commondir": "../..\n"}, "repo"},
		{"absolute commondir", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w", "repo/.git/worktrees/w/commondir": "{root}/repo/.git"}, "repo"},
		{"CRLF and spaces", map[string]string{"wt/.git": "gitdir:  ../repo/.git/worktrees/w \r\n", "repo/.git/worktrees/w/commondir": "../..\r\n"}, "repo"},
		{"a bare repository's git dir", map[string]string{"wt/.git": "gitdir: ../bare.git/worktrees/w", "bare.git/worktrees/w/commondir": "../.."}, "bare.git"},
		{"no commondir", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w", "repo/.git/worktrees/w/HEAD": "x"}, ""},
		{"empty commondir", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w", "repo/.git/worktrees/w/commondir": "\n"}, ""},
		{"garbage commondir", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w", "repo/.git/worktrees/w/commondir": "\x00\x01"}, ""},
		{"commondir elsewhere", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w", "repo/.git/worktrees/w/commondir": "../../../other/.git"}, ""},
		{"commondir a word", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w", "repo/.git/worktrees/w/commondir": "garbage"}, ""},
		{"commondir a folder", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w", "repo/.git/worktrees/w/commondir/x": "x"}, ""},
		{"commondir a link", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w", "repo/.git/worktrees/w/commondir": "->c", "repo/.git/worktrees/w/c": "../.."}, ""},
		{"a .git link to a gitdir file", map[string]string{"wt/.git": "->../g", "g": "gitdir: repo/.git/worktrees/w", "repo/.git/worktrees/w/commondir": "../.."}, ""},
		{"a huge .git", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w\n" + strings.Repeat(" ", maxGitFile), "repo/.git/worktrees/w/commondir": "../.."}, ""},
		{"a huge commondir", map[string]string{"wt/.git": "gitdir: ../repo/.git/worktrees/w", "repo/.git/worktrees/w/commondir": "../.." + strings.Repeat("\n", maxGitFile)}, ""},
		{"a gitdir pointing nowhere", map[string]string{"wt/.git": "gitdir: ../gone/.git/worktrees/w"}, ""},
		{"an empty gitdir", map[string]string{"wt/.git": "gitdir:\n", "wt/commondir": ".."}, ""},
		{"no gitdir: prefix", map[string]string{"wt/.git": "../repo/.git/worktrees/w", "repo/.git/worktrees/w/commondir": "../.."}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, content := range tc.files {
				p := filepath.Join(root, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if target, ok := strings.CutPrefix(content, "->"); ok {
					if err := os.Symlink(target, p); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.WriteFile(p, []byte(strings.ReplaceAll(content, "{root}", root)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			top := filepath.Join(root, "wt")
			want := []string{top}
			if tc.want != "" {
				want = append(want, filepath.Join(root, tc.want))
			}
			if got := Bases(top); !reflect.DeepEqual(got, want) {
				t.Errorf("Bases = %q, want %q", got, want)
			}
		})
	}
}

// Dirs keys each config folder's memory by the worktree and its main
// repository; a folder without .git by itself alone.
func TestDirsKeyAWorktreesMemoryByBoth(t *testing.T) {
	root := t.TempDir()
	wt, repo := filepath.Join(root, "wt"), filepath.Join(root, "repo")
	for p, c := range map[string]string{filepath.Join(wt, ".git"): "gitdir: " + repo + "/.git/worktrees/w\n", filepath.Join(repo, ".git/worktrees/w/commondir"): "../..\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := Dirs(wt, "/c", Env{Remote: "/r"})
	want := []string{Dir("/c", wt), Dir("/r", wt), Dir("/c", repo), Dir("/r", repo)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Dirs = %q, want %q", got, want)
	}
	if got := Dirs(repo, "/c", Env{}); !reflect.DeepEqual(got, []string{Dir("/c", repo)}) {
		t.Errorf("Dirs of a folder without .git = %q", got)
	}
}
