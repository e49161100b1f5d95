package memkey

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func envOf(kv ...string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

// TestTheClientsMemoryVariablesAreTakenAsItTakesThem: a folder not
// absolute, a name not of the client's shape, are not taken; the cowork
// folder is cleaned as the client's path.normalize cleans it.
func TestTheClientsMemoryVariablesAreTakenAsItTakesThem(t *testing.T) {
	for _, tc := range []struct {
		kv   []string
		want Env
	}{
		{nil, Env{}},
		{[]string{"CLAUDE_CODE_REMOTE_MEMORY_DIR", "/rm"}, Env{Remote: "/rm"}},
		{[]string{"CLAUDE_CODE_REMOTE_MEMORY_DIR", "rm"}, Env{}},
		{[]string{"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/co//w/../x/"}, Env{Cowork: "/co/x"}},
		{[]string{"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "~/x"}, Env{}},
		{[]string{"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/x"}, Env{}},
		{[]string{"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/a\x00b"}, Env{}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", "named_1-x"}, Env{DirName: "named_1-x"}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", ""}, Env{}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", "../x"}, Env{}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", "a/b"}, Env{}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", "a\nb"}, Env{}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", "COM1"}, Env{}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", "lpt0"}, Env{}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", "Nul"}, Env{}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", "com10"}, Env{DirName: "com10"}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", "console"}, Env{DirName: "console"}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", "a\u00e9"}, Env{}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", strings.Repeat("a", 65)}, Env{}},
		{[]string{"CLAUDE_CODE_PROJECT_DIR_NAME", strings.Repeat("a", 64)}, Env{DirName: strings.Repeat("a", 64)}},
	} {
		if got := EnvOf(envOf(tc.kv...)); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.kv, got, tc.want)
		}
	}
}

// TestDirsHoldTheNamedKeyAndTheCoworkFolder: a project folder name keys
// the config folder's memory too, and the cowork folder is one itself.
func TestDirsHoldTheNamedKeyAndTheCoworkFolder(t *testing.T) {
	got := Dirs("/p", "/c", Env{DirName: "named", Cowork: "/co"})
	want := []string{"/c/projects/-p/memory", "/c/projects/named/memory", "/co"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Dirs = %q, want %q", got, want)
	}
	if got := Dirs("", "/c", Env{DirName: "named"}); got != nil {
		t.Errorf("no project, yet %q", got)
	}
}

// TestAgentMemoryFoldersAreEveryAgentsOfEachPlace: each entry of each
// place not a regular file is an agent's memory folder; a link too, as the
// client follows one under the user's folder.
func TestAgentMemoryFoldersAreEveryAgentsOfEachPlace(t *testing.T) {
	root := t.TempDir()
	cfg, proj := filepath.Join(root, "c"), filepath.Join(root, "p")
	for _, d := range []string{cfg + "/agent-memory/memo", proj + "/.claude/agent-memory/rev", proj + "/.claude/agent-memory-local/loc", root + "/elsewhere"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(cfg+"/agent-memory/notes.md", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root+"/elsewhere", cfg+"/agent-memory/linked"); err != nil {
		t.Fatal(err)
	}
	places := AgentPlaces(cfg, proj, proj, Env{})
	if want := []Folder{{cfg + "/agent-memory", false}, {proj + "/.claude/agent-memory", true}, {proj + "/.claude/agent-memory-local", true}}; !reflect.DeepEqual(places, want) {
		t.Fatalf("places %v, want %v", places, want)
	}
	got := AgentDirs(places)
	want := []Folder{{cfg + "/agent-memory/linked", false}, {cfg + "/agent-memory/memo", false}, {proj + "/.claude/agent-memory/rev", true}, {proj + "/.claude/agent-memory-local/loc", true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AgentDirs = %v, want %v", got, want)
	}
	// With a remote folder, it stands for the config folder, and local
	// memory is keyed in it too.
	r := AgentPlaces(cfg, proj, proj, Env{Remote: "/rm"})
	if r[0].Path != "/rm/agent-memory" || r[len(r)-1].Path != "/rm/projects/"+Of(proj)+"/agent-memory-local" {
		t.Errorf("remote places %v", r)
	}
}

// FuzzIsDirNameIsTheClientsPattern: the written-out check answers as the
// client's two patterns do, on any bytes.
func FuzzIsDirNameIsTheClientsPattern(f *testing.F) {
	shape := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	refused := regexp.MustCompile(`(?i)^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$`)
	for _, s := range []string{"", "named", "COM1", "lpt9", "a/b", strings.Repeat("x", 65), "\x00", "K\u212a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if want := shape.MatchString(v) && !refused.MatchString(v); isDirName(v) != want {
			t.Errorf("isDirName(%q) = %v, want %v", v, !want, want)
		}
	})
}
