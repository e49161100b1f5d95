package memkey

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// autoMemoryDirectory moves auto memory when it is absolute or under "~/";
// a relative one, or one of another type, moves nothing (2.1.332, e2e
// TestAMovedMemoryFolderIsWatched). The path is kept as given.
func TestAMovedMemoryFolderIsAbsoluteOrUnderHome(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"autoMemoryDirectory":"/m/x"}`, "/m/x"},
		{`{"autoMemoryDirectory":"/m/../x"}`, "/m/../x"},
		{`{"autoMemoryDirectory":"~/mem"}`, "/h/mem"},
		{`{"autoMemoryDirectory":"~/"}`, ""},
		{`{"autoMemoryDirectory":"~"}`, ""},
		{`{"autoMemoryDirectory":"mem"}`, ""},
		{`{"autoMemoryDirectory":"./mem"}`, ""},
		{`{"autoMemoryDirectory":""}`, ""},
		{`{"autoMemoryDirectory":7}`, ""},
		{`{"autoMemoryDirectory":null}`, ""},
		{`{}`, ""},
		{`not json`, ""},
		{``, ""},
	} {
		if got := Moved([]byte(tc.json), "/h"); got != tc.want {
			t.Errorf("Moved(%s) = %q, want %q", tc.json, got, tc.want)
		}
	}
	if got := Moved([]byte(`{"autoMemoryDirectory":"~/mem"}`), "relative"); got != "" {
		t.Errorf("under a home not absolute: %q", got)
	}
}

// Every settings file the client reads it from counts: the user's, the
// project's and the local one. A file that is no JSON names none, as does
// a link (never followed) or a missing folder.
func TestEverySettingsFileThatMovesMemoryIsRead(t *testing.T) {
	d := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(d, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cfg/settings.json", `{"autoMemoryDirectory":"/u"}`)
	write("cfg/settings.local.json", `{"autoMemoryDirectory":"/not-read-by-the-client"}`)
	write("p/.claude/settings.json", `{"autoMemoryDirectory":"~/pm"}`)
	write("p/.claude/settings.local.json", `{"autoMemoryDirectory":"/l"}`)
	write("m/managed-settings.json", `{"autoMemoryDirectory":"/m"}`)
	write("m/managed-settings.d/10-a.json", `{"autoMemoryDirectory":"/md"}`)
	write("m/managed-settings.d/20-b.txt", `{"autoMemoryDirectory":"/not-a-drop-in"}`)
	got := MovedBy(filepath.Join(d, "cfg"), filepath.Join(d, "p"), "/h", filepath.Join(d, "m"))
	want := []Folder{{Path: "/u"}, {Path: "/h/pm", Project: true}, {Path: "/l", Project: true}, {Path: "/m"}, {Path: "/md"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MovedBy = %+v, want %+v", got, want)
	}
	write("p/.claude/settings.json", `{"autoMemoryDirectory":`)
	if err := os.Remove(filepath.Join(d, "p/.claude/settings.local.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(d, "cfg/settings.json"), filepath.Join(d, "p/.claude/settings.local.json")); err != nil {
		t.Fatal(err)
	}
	if got := MovedBy(filepath.Join(d, "cfg"), filepath.Join(d, "p"), "/h", ""); len(got) != 1 || got[0].Path != "/u" {
		t.Errorf("a torn file and a link moved memory: %+v", got)
	}
	if got := MovedBy(filepath.Join(d, "none"), "", "/h", filepath.Join(d, "none")); got != nil {
		t.Errorf("no folder: %+v", got)
	}
	if Dir("/c", "/r/p") != "/c/projects/-r-p/memory" || Dir("", "/r") != "" || !strings.HasSuffix(Dir("/c", "/x"), "/memory") {
		t.Error("Dir")
	}
}
