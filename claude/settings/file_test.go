package settings

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/internal/safefile"
	"golang.org/x/sys/unix"
)

func TestOpenReadsOnlyARegularFile(t *testing.T) {
	dir := t.TempDir() // a valid settings file, which a link must not reach
	if err := os.WriteFile(dir+"/real", []byte(`{"model":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		make func(path string) error
		want error
	}{
		{"symlink", func(p string) error { return os.Symlink(dir+"/real", p) }, safefile.ErrSymlink},
		{"dangling symlink", func(p string) error { return os.Symlink("nowhere", p) }, safefile.ErrSymlink},
		{"fifo", func(p string) error { return unix.Mkfifo(p, 0o600) }, safefile.ErrNotRegular},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, safefile.ErrNotRegular},
		{"too large", func(p string) error { return os.WriteFile(p, make([]byte, config.MaxJSON+1), 0o600) }, ErrTooLarge},
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("{"), 0o600) }, ErrNotJSON},
		{"not an object", func(p string) error { return os.WriteFile(p, []byte("[]"), 0o600) }, ErrNotObject},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := t.TempDir()
			if err := c.make(claude.SettingsPath(cfg)); err != nil {
				t.Fatal(err)
			}
			// A FIFO would block an open without O_NONBLOCK: no writer
			// comes.
			if _, err := Open(cfg); !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
		})
	}
}

func TestOpenOfAMissingFileIsAnEmptyDocument(t *testing.T) {
	f, err := Open(t.TempDir() + "/absent")
	if err != nil {
		t.Fatal(err)
	}
	before, after := f.Change()
	if f.Exists || before != nil || string(after) != "{}\n" || f.Mode != 0o600 || f.Reformatted() {
		t.Errorf("exists %v, mode %v, change %q -> %q", f.Exists, f.Mode, before, after)
	}
}

func TestOpenProjectRefusesALinkedClaudeDir(t *testing.T) {
	project := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, claude.ProjectConfigDir(project)); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenProject(project); !errors.Is(err, ErrLinkedProject) {
		t.Fatalf("error %v, want ErrLinkedProject", err)
	}
}

func TestInstallHookIsIdempotentAndCountsOtherBinaries(t *testing.T) {
	other := "/usr/local/bin/skillwire hook session-start"
	s := mustParse(t, `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"`+other+`"}]}]}}`)
	for i, want := range []bool{true, false, false} {
		added, others, err := s.InstallHook(HookSpecs[0], testCommand)
		if err != nil || added != want || others != 1 {
			t.Fatalf("install %d: added %v, others %d, %v; want %v, 1", i, added, others, err, want)
		}
	}
	cmds, _ := s.Commands(hookio.EventSessionStart)
	if len(cmds) != 2 {
		t.Errorf("commands %q", cmds)
	}
}

func TestInstallHookRepairsOurCommandUnderAWrongMatcher(t *testing.T) {
	h := HookSpecs[1] // PreToolUse, for the tools that name a candidate
	cmd := "/usr/bin/skillwire hook pre-tool-use"
	s := mustParse(t, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"`+cmd+`"},{"type":"command","command":"echo mine"}]}]}}`)
	for i, want := range []bool{true, false} {
		added, _, err := s.InstallHook(h, cmd)
		if err != nil || added != want {
			t.Fatalf("install %d: added %v, %v; want %v", i, added, err, want)
		}
	}
	_, ss, err := s.eventHooks(h.Event)
	if err != nil || len(ss.val.elems) != 2 || matcherOf(ss.val.elems[0]) != "Bash" || hasCommand(ss.val.elems[0], cmd) ||
		matcherOf(ss.val.elems[1]) != h.Matcher || !hasCommand(ss.val.elems[1], cmd) {
		t.Fatalf("%s", s.Encode())
	}
	if cmds, _ := s.Commands(h.Event); len(cmds) != 2 || cmds[0] != "echo mine" {
		t.Fatalf("commands %q", cmds)
	}
}

func TestUninstallHooksRemovesOursAndSkillwiresOnly(t *testing.T) {
	self := "'/opt/my tools/sw' hook session-start" // not named skillwire: removed as self
	s := mustParse(t, `{"hooks":{"SessionStart":[{"hooks":[
		{"type":"command","command":"`+self+`"},
		{"type":"command","command":"/usr/bin/skillwire hook session-start"},
		{"type":"command","command":"echo mine"}]}]}}`)
	removed, err := s.UninstallHooks(HookSpecs[0], self)
	if err != nil || len(removed) != 2 {
		t.Fatalf("removed %q, %v", removed, err)
	}
	if cmds, _ := s.Commands(hookio.EventSessionStart); len(cmds) != 1 || cmds[0] != "echo mine" {
		t.Errorf("left %q", cmds)
	}
	if removed, _ := s.UninstallHooks(HookSpecs[0], ""); len(removed) != 0 {
		t.Errorf("removed again: %q", removed)
	}
}

func writeSettings(t *testing.T, dir, text string, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(claude.SettingsPath(dir), []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(claude.SettingsPath(dir), mode); err != nil {
		t.Fatal(err)
	}
}

func TestWriteKeepsABackupAndTheModeAndNeverOverwritesABackup(t *testing.T) {
	dir := t.TempDir()
	orig := `{"model": "opus"}`
	writeSettings(t, dir, orig, 0o640)
	var backups []string
	for i := range 2 {
		f, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && !f.Reformatted() {
			t.Error("a file in another layout is not reported as reformatted")
		}
		if _, err := f.Doc.AddHook(hookio.EventSessionStart, "", testCommand+string(rune('a'+i))); err != nil {
			t.Fatal(err)
		}
		backup, err := f.Write()
		if err != nil {
			t.Fatal(err)
		}
		backups = append(backups, backup)
	}
	path := claude.SettingsPath(dir)
	if want := []string{path + ".skillwire-backup", path + ".skillwire-backup.1"}; backups[0] != want[0] || backups[1] != want[1] {
		t.Errorf("backups %q, want %q", backups, want)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != orig {
		t.Errorf("first backup %q, want the original", b)
	}
	for _, p := range append(backups, path) {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v, %v; want the original's 0640", p, fi.Mode(), err)
		}
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cmds, _ := f.Doc.Commands(hookio.EventSessionStart); len(cmds) != 2 {
		t.Errorf("commands %q", cmds)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("directory holds %d files, want the settings and two backups", len(ents))
	}
}

func TestWriteCreatesTheFileAndItsDirectory(t *testing.T) {
	dir := t.TempDir() + "/.claude"
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Doc.AddHook(hookio.EventSessionStart, "", testCommand); err != nil {
		t.Fatal(err)
	}
	if backup, err := f.Write(); err != nil || backup != "" {
		t.Fatalf("backup %q, %v", backup, err)
	}
	_, after := f.Change()
	b, fi, err := safefile.Read(claude.SettingsPath(dir), config.MaxJSON, safefile.Trust{})
	if err != nil || !bytes.Equal(b, after) || fi.Mode().Perm() != 0o600 {
		t.Errorf("wrote %q mode %v, %v", b, fi.Mode(), err)
	}
	if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("directory %v, %v", di.Mode(), err)
	}
}

func TestWriteRefusesAFileChangedSinceItWasRead(t *testing.T) {
	for _, c := range []struct {
		name   string
		exists bool
		change func(path string) error
	}{
		{"rewritten by Claude Code", true, func(p string) error { return os.WriteFile(p, []byte(`{"model":"sonnet"}`), 0o600) }},
		{"replaced by a link", true, func(p string) error { os.Remove(p); return os.Symlink("elsewhere", p) }},
		{"removed", true, os.Remove},
		{"created meanwhile", false, func(p string) error { return os.WriteFile(p, []byte(`{}`), 0o600) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.exists {
				writeSettings(t, dir, "{}\n", 0o600)
			}
			f, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Doc.AddHook(hookio.EventSessionStart, "", testCommand); err != nil {
				t.Fatal(err)
			}
			path := claude.SettingsPath(dir)
			if err := c.change(path); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Lstat(path)
			if _, err := f.Write(); !errors.Is(err, ErrChanged) {
				t.Fatalf("error %v, want ErrChanged", err)
			}
			after, _ := os.Lstat(path)
			if (before == nil) != (after == nil) || before != nil && !os.SameFile(before, after) {
				t.Error("the changed file was replaced")
			}
			for _, e := range mustReadDir(t, dir) {
				if strings.Contains(e, ".tmp-") {
					t.Errorf("left behind: %s", e)
				}
			}
		})
	}
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestQuoteJSON(t *testing.T) {
	for in, want := range map[string]string{
		`/bin/skillwire hook session-start`: `"/bin/skillwire hook session-start"`,
		`'a"b' \x`:                          `"'a\"b' \\x"`,
		"tab\there\x1b[31m":                 `"tab\u0009here\u001b[31m"`,
		"é\u202e":                           "\"é\u202e\"", // the terminal escaping comes after
	} {
		if got := QuoteJSON(in); got != want {
			t.Errorf("QuoteJSON(%q) = %s, want %s", in, got, want)
		}
	}
}

// The backup keeps the mode the file had when read, whatever mode the
// edit gives the file; a restore gives the reviewed one. What it displaced
// must not become readable by more people than it was.
func TestABackupKeepsTheModeTheFileHadWhenRead(t *testing.T) {
	old := unix.Umask(0)
	defer unix.Umask(old)
	dir := t.TempDir()
	writeSettings(t, dir, `{"model": "opus"}`, 0o600)
	f, err := OpenFile(claude.SettingsPath(dir), config.MaxJSON)
	if err != nil {
		t.Fatal(err)
	}
	f.Mode = 0o644
	backup, err := f.Write()
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]fs.FileMode{backup: 0o600, claude.SettingsPath(dir): 0o644} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want %04o", p, fi, err, want)
		}
	}
}

// A folder holding MaxBackups backups already makes the write impossible.
// An attacker's repository can ship them. The error says where and what to
// do, and nothing is written.
func TestTooManyBackupsNameTheFolderAndWhatToDo(t *testing.T) {
	dir := t.TempDir()
	writeSettings(t, dir, `{"model": "opus"}`, 0o644)
	base := claude.SettingsPath(dir) + ".skillwire-backup"
	for i := range MaxBackups {
		name := base
		if i > 0 {
			name += "." + strconv.Itoa(i)
		}
		if err := os.WriteFile(name, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.Doc.Delete("model")
	_, err = f.Write()
	if !errors.Is(err, ErrTooManyBackups) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "move them out") {
		t.Fatalf("Write = %v", err)
	}
	if b, _ := os.ReadFile(claude.SettingsPath(dir)); string(b) != `{"model": "opus"}` {
		t.Fatalf("written: %s", b)
	}
}
