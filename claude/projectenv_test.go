package claude

import (
	"slices"
	"testing"
)

func TestHookProjectsAreTheProjectDirAndTheAbsoluteCwd(t *testing.T) {
	for _, tc := range []struct {
		name       string
		projectDir string // "" unset
		cwd, wd    string
		want       []string
	}{
		{"CLAUDE_PROJECT_DIR and the cwd", "/p", "/p/sub", "/x", []string{"/p", "/p/sub"}},
		{"no CLAUDE_PROJECT_DIR: the cwd twice", "", "/c", "/x", []string{"/c", "/c"}},
		{"a relative CLAUDE_PROJECT_DIR is not one", "rel", "/c", "/x", []string{"/c", "/c"}},
		{"a relative cwd: the working directory alone", "", "rel", "/x", []string{"/x"}},
		{"no cwd and no working directory", "", "", "", []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := Env{
				Getenv: func(k string) (string, bool) { return tc.projectDir, k == "CLAUDE_PROJECT_DIR" && tc.projectDir != "" },
				Getwd:  func() (string, error) { return tc.wd, nil },
			}
			if got := HookProjects(env, tc.cwd); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
