package clientproc

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A mute mod given with --plugin-dir is seen while its session runs (issue
// 32): status read no session's command line, and the mod muted the start
// that would have recorded it. Running reads every client of this user:
// its flags and the CLAUDE_CODE_PLUGIN_DIRS it started with. A process
// that is not the client is never read beyond its name. One whose command
// line cannot be read is told. A client of another configuration
// directory runs other hooks: its folders are none of these.
func TestThePluginFoldersOfRunningClientsAreRead(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"proj", "pd", "env", "other"} {
		must(t, os.Mkdir(filepath.Join(base, d), 0o755))
	}
	proj := filepath.Join(base, "proj")
	fp := newFakeProc(t,
		fakeProcess{pid: 100, ppid: 1, comm: "claude", cwd: proj, argv: []string{"claude", "--plugin-dir", base + "/pd"}, env: []string{"PWD=" + proj, "HOME=/h"}},
		fakeProcess{pid: 101, ppid: 1, comm: "node", exe: base + "/claude", cwd: proj, argv: []string{"node", "--plugin-dir", base + "/pd"},
			env: []string{"PWD=" + proj, envPluginDirs + "=" + base + "/env", "CLAUDE_CONFIG_DIR=/h/.claude"}},
		fakeProcess{pid: 102, ppid: 1, comm: "node", cwd: proj, argv: []string{"node", "--plugin-dir", base + "/other"}, env: []string{"HOME=/h"}},
		fakeProcess{pid: 103, ppid: 1, comm: "claude", cwd: proj, argv: []string{"claude"}, env: []string{"HOME=/h"}},
		fakeProcess{pid: 105, ppid: 1, comm: "claude", cwd: proj, argv: []string{"claude", "--plugin-dir", base + "/other"}, env: []string{"HOME=/elsewhere"}},
	)
	must(t, os.WriteFile(filepath.Join(fp.dir, "self"), nil, 0o644)) // not a pid
	got := Running(fp.dir, "/h/.claude")
	if want := []string{base + "/pd", base + "/env"}; !slices.Equal(got.Dirs, want) || got.Problem != "" {
		t.Errorf("folders %q, problem %q; want %q and none", got.Dirs, got.Problem, want)
	}

	fp.add(fakeProcess{pid: 104, ppid: 1, comm: "claude", argv: []string{"claude"}, noEnviron: true})
	must(t, os.Mkdir(filepath.Join(fp.dir, "104", "environ"), 0o755)) // there, and unreadable
	if got := Running(fp.dir, "/h/.claude"); got.Problem != problemClientRead || len(got.Dirs) != 2 {
		t.Errorf("an unreadable client: folders %q, problem %q", got.Dirs, got.Problem)
	}
	fp.add(fakeProcess{pid: 106, ppid: 1, comm: "claude", argv: []string{}, env: []string{}}) // a zombie: nothing in cmdline
	must(t, os.WriteFile(filepath.Join(fp.dir, "106", "cmdline"), nil, 0o644))
	if got := Running(fp.dir, "/h/.claude"); got.Problem != problemClientRead || len(got.Dirs) != 2 {
		t.Errorf("a zombie client: folders %q, problem %q", got.Dirs, got.Problem)
	}
	must(t, os.RemoveAll(filepath.Join(fp.dir, "104")))
	if got := Running(fp.dir, "/h/.claude"); got.Problem != "" {
		t.Errorf("a zombie client is a problem: %q", got.Problem)
	}
	if got := Running("", "/h/.claude"); got.Problem != problemNoProc {
		t.Errorf("no /proc: problem %q", got.Problem)
	}
}
