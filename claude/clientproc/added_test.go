package clientproc

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillwire/skillwire/claude"
)

// fakeProc is a proc filesystem of processes. Each pid has a comm, ppid,
// exe, cwd and argv.
type fakeProc struct {
	t   testing.TB
	dir string
}

type fakeProcess struct {
	pid, ppid int
	comm, exe string
	cwd       string
	argv      []string
	env       []string // KEY=VALUE; written as environ
	noEnviron bool
}

func newFakeProc(t *testing.T, ps ...fakeProcess) fakeProc {
	t.Helper()
	fp := fakeProc{t: t, dir: t.TempDir()}
	for _, p := range ps {
		fp.add(p)
	}
	return fp
}

func (fp fakeProc) add(p fakeProcess) {
	d := filepath.Join(fp.dir, strconv.Itoa(p.pid))
	must := func(err error) {
		if err != nil {
			fp.t.Fatal(err)
		}
	}
	must(os.MkdirAll(d, 0o755))
	must(os.WriteFile(filepath.Join(d, "stat"), []byte(strconv.Itoa(p.pid)+" ("+p.comm+") S "+strconv.Itoa(p.ppid)+" 1 1 0 -1\n"), 0o644))
	must(os.WriteFile(filepath.Join(d, "cmdline"), []byte(strings.Join(p.argv, "\x00")+"\x00"), 0o644))
	if !p.noEnviron {
		environ := ""
		for _, kv := range p.env {
			environ += kv + "\x00"
		}
		must(os.WriteFile(filepath.Join(d, "environ"), []byte(environ), 0o644))
	}
	if p.exe != "" {
		must(os.Symlink(p.exe, filepath.Join(d, "exe")))
	}
	if p.cwd != "" {
		must(os.Symlink(p.cwd, filepath.Join(d, "cwd")))
	}
}

func envOf(kv ...string) claude.Env {
	return claude.Env{Getenv: func(k string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1], true
			}
		}
		return "", false
	}}
}

// hookChain is the client (pid 100), started by a shell in cwd (its $PWD).
// The client starts `sh -c` (pid 200), the hook's parent.
func hookChain(clientComm, clientExe, cwd string, argv ...string) []fakeProcess {
	return []fakeProcess{
		{pid: 100, ppid: 50, comm: clientComm, exe: clientExe, cwd: cwd, argv: append([]string{"claude"}, argv...), env: []string{"PWD=" + cwd}},
		{pid: 200, ppid: 100, comm: "sh", exe: "/usr/bin/dash", cwd: cwd, argv: []string{"/bin/sh", "-c", "skillwire hook session-start"}},
		{pid: 50, ppid: 1, comm: "bash", exe: "/usr/bin/bash", argv: []string{"bash"}},
	}
}

func TestTheClientsAddedFoldersAreReadFromItsCommandLine(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"proj", "rel", "eq", "abs"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	proj := filepath.Join(base, "proj")
	fp := newFakeProc(t, hookChain("claude", "/opt/claude/bin/claude.exe", proj,
		"-p", "hello", "--add-dir", base+"/abs", "../rel", "--model", "x", "--add-dir="+base+"/eq", "--", "--add-dir", "/nope")...)
	got := Client{Proc: fp.dir, Parent: 200}.Added(envOf("CLAUDE_PID", "100", "CLAUDECODE", "1"))
	want := []string{base + "/abs", base + "/rel", base + "/eq", "/nope"} // over "--": it may be another option's value
	if !slices.Equal(got.Dirs, want) || got.Problem != "" {
		t.Errorf("got %q (problem %q), want %q", got.Dirs, got.Problem, want)
	}
}

func TestTheClientIsKnownByWhatItIsNeverByTheEnvironmentAlone(t *testing.T) {
	dir := t.TempDir()
	argv := []string{"--add-dir", dir}
	cases := []struct {
		name       string
		comm, exe  string
		env        []string
		wantDirs   bool
		wantReason string
	}{
		{"by its name", "claude", "/x/versions/2.1.328", []string{"CLAUDECODE", "1"}, true, ""},
		{"by its executable", "2.1.328", "/x/bin/claude.exe", []string{"CLAUDECODE", "1"}, true, ""},
		{"no client runs the process", "claude", "/x/claude", nil, false, ""},
		{"CLAUDE_PID names it", "claude", "/x/claude", []string{"CLAUDE_PID", "100"}, true, ""},
		{"CLAUDE_PID names the shell", "claude", "/x/claude", []string{"CLAUDE_PID", "200"}, false, problemNotFound},
		{"CLAUDE_PID names init", "claude", "/x/claude", []string{"CLAUDE_PID", "1"}, false, problemNotFound},
		{"CLAUDE_PID is not a pid", "claude", "/x/claude", []string{"CLAUDE_PID", "1e3"}, false, problemNotFound},
		{"a wrapper is not the client", "node", "/usr/bin/node", []string{"CLAUDECODE", "1"}, false, problemNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fp := newFakeProc(t, hookChain(c.comm, c.exe, dir, argv...)...)
			got := Client{Proc: fp.dir, Parent: 200}.Added(envOf(c.env...))
			if (len(got.Dirs) > 0) != c.wantDirs || got.Problem != c.wantReason {
				t.Errorf("got %q, problem %q; want dirs %v, problem %q", got.Dirs, got.Problem, c.wantDirs, c.wantReason)
			}
		})
	}
}

func TestAddedFoldersThatCannotBeObservedAreToldNeverSilent(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real", "deep")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, cwd string
		argv      []string
		want      string
	}{
		// The kernel reaches real/x through link/..; the text reads base/x.
		{"a .. after a link", base, []string{"--add-dir", "link/../x"}, problemDotted},
		{"~ is not expanded", base, []string{"--add-dir", "~/x"}, problemTilde},
		{"a relative folder without a working directory", "", []string{"--add-dir", "x"}, problemCwd},
		{"a working directory deleted", base + "/gone (deleted)", []string{"--add-dir", "x"}, problemCwd},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fp := newFakeProc(t, hookChain("claude", "/x/claude", c.cwd, c.argv...)...)
			got := Client{Proc: fp.dir, Parent: 200}.Added(envOf("CLAUDECODE", "1"))
			if got.Problem != c.want || len(got.Dirs) != 0 {
				t.Errorf("got %q, problem %q; want problem %q", got.Dirs, got.Problem, c.want)
			}
		})
	}
	t.Run("a .. the kernel reads alike is read", func(t *testing.T) {
		fp := newFakeProc(t, hookChain("claude", "/x/claude", real, "--add-dir", "../../x/")...)
		got := Client{Proc: fp.dir, Parent: 200}.Added(envOf("CLAUDECODE", "1"))
		if !slices.Equal(got.Dirs, []string{filepath.Join(base, "x")}) || got.Problem != "" {
			t.Errorf("got %q, problem %q", got.Dirs, got.Problem)
		}
	})
	t.Run("no proc filesystem", func(t *testing.T) {
		if got := (Client{}).Added(envOf("CLAUDECODE", "1")); got.Problem != problemNoProc {
			t.Errorf("problem %q", got.Problem)
		}
		if got := (Client{}).Added(envOf()); got.Problem != "" {
			t.Errorf("without a client, problem %q", got.Problem)
		}
	})
	t.Run("a command line longer than read", func(t *testing.T) {
		fp := newFakeProc(t, hookChain("claude", "/x/claude", base, "--add-dir", base, strings.Repeat("a", maxCmdline))...)
		if got := (Client{Proc: fp.dir, Parent: 200}).Added(envOf("CLAUDECODE", "1")); got.Problem != problemCmdline || len(got.Dirs) > 0 {
			t.Errorf("got %q, problem %q", got.Dirs, got.Problem)
		}
	})
	t.Run("more folders than watched", func(t *testing.T) {
		argv := []string{"--add-dir"}
		for i := range MaxAdded + 5 {
			argv = append(argv, "/d"+strconv.Itoa(i))
		}
		fp := newFakeProc(t, hookChain("claude", "/x/claude", base, argv...)...)
		got := Client{Proc: fp.dir, Parent: 200}.Added(envOf("CLAUDECODE", "1"))
		if got.Problem != problemTooMany || len(got.Dirs) != MaxAdded {
			t.Errorf("%d dirs, problem %q", len(got.Dirs), got.Problem)
		}
	})
}

// A cycle of parent links, or a chain longer than the bound, ends the
// walk. No client is found, and that is told.
func TestTheWalkUpTheParentsIsBounded(t *testing.T) {
	var ps []fakeProcess
	for i := range 3 * maxHops {
		ps = append(ps, fakeProcess{pid: 10 + i, ppid: 11 + i, comm: "sh", argv: []string{"sh"}})
	}
	ps = append(ps, fakeProcess{pid: 10 + 3*maxHops, ppid: 1, comm: "claude", argv: []string{"claude", "--add-dir", "/x"}})
	ps = append(ps, fakeProcess{pid: 5, ppid: 6, comm: "sh (x) )", argv: []string{"sh"}}, fakeProcess{pid: 6, ppid: 5, comm: "sh", argv: []string{"sh"}})
	fp := newFakeProc(t, ps...)
	for _, start := range []int{10, 5} {
		if got := (Client{Proc: fp.dir, Parent: start}).Added(envOf("CLAUDECODE", "1")); got.Problem != problemNotFound || len(got.Dirs) > 0 {
			t.Errorf("from %d: got %q, problem %q", start, got.Dirs, got.Problem)
		}
	}
}

// Claude Code 2.1.328's option parser (Commander) reads `--add-dir
// <directories...>` so. It takes the next argument whatever it is. Then it
// takes every following one that does not look like an option, up to a
// "--". An option is longer than "-" and starts with it, unless it is a
// negative number. The flag may repeat. `--add-dir=x` is one value.
// Another option's value may be "--", so "--" ends no options here.
func TestAddDirArgsReadsTheFlagAsTheClientsParserDoes(t *testing.T) {
	cases := []struct {
		argv []string
		want []string
	}{
		{[]string{"claude", "--add-dir", "a", "b", "-p", "c"}, []string{"a", "b"}},
		{[]string{"claude", "--add-dir", "-x", "b"}, []string{"-x", "b"}}, // the first value is taken whatever it is
		{[]string{"claude", "--add-dir", "a", "-1", "-", "--model"}, []string{"a", "-1", "-"}},
		{[]string{"claude", "--add-dir=a", "b"}, []string{"a"}},
		{[]string{"claude", "--add-dir"}, nil},
		{[]string{"claude", "--", "--add-dir", "a"}, []string{"a"}},                           // "--" ends nothing: it may be a value
		{[]string{"claude", "--append-system-prompt", "--", "--add-dir", "a"}, []string{"a"}}, // as the client reads it
		{[]string{"claude", "--append-system-prompt=--", "--add-dir", "a", "b"}, []string{"a", "b"}},
		{[]string{"claude", "--add-dir", "a", "--", "b"}, []string{"a"}},                     // "--" ends the values
		{[]string{"claude", "--add-dir", "--add-dir", "a"}, []string{"--add-dir", "a", "a"}}, // the value reading like the flag is also the flag (repeats are the caller's to drop)
		{[]string{"claude", "--add-dir", "--", "b", "--add-dir=c"}, []string{"--", "b", "c"}},
		{[]string{"--add-dir", "a"}, nil}, // argv[0] is the program
		{[]string{"claude", "--add-dir", "a\nb\x1b[2J", "--add-dir", "c"}, []string{"a\nb\x1b[2J", "c"}},
	}
	for _, c := range cases {
		if got := AddDirArgs(c.argv); !slices.Equal(got, c.want) {
			t.Errorf("AddDirArgs(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}

func FuzzAddDirArgs(f *testing.F) {
	f.Add("claude\x00--add-dir\x00a\x00b\x00--add-dir=c\x00--\x00d")
	f.Add("\x00\x00--add-dir")
	f.Fuzz(func(t *testing.T, cmdline string) {
		argv := splitArgs([]byte(cmdline))
		for _, v := range AddDirArgs(argv) {
			if !slices.Contains(argv, v) && !slices.Contains(argv, "--add-dir="+v) {
				t.Fatalf("%q is no argument of %q", v, argv)
			}
		}
	})
}

// clientWith is hookChain's client with its environment env and argv.
// PWD=cwd comes first, as a shell starts it.
func clientWith(t *testing.T, cwd string, env []string, argv ...string) Client {
	ps := hookChain("claude", "/x/claude", cwd, argv...)
	ps[0].env = append(ps[0].env, env...)
	return Client{Proc: newFakeProc(t, ps...).dir, Parent: 200}
}

// The client adds more than its command line's folders. It adds those a
// relaunch passes in CLAUDE_RELAUNCH_SESSION_ADD_DIRS. It adds a
// background session's addDirs. Both come from the environment it started
// with.
func TestTheClientsAddedFoldersAreReadFromItsEnvironment(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"proj", "re", "bg", "cli"} {
		must(t, os.Mkdir(filepath.Join(base, d), 0o755))
	}
	proj := filepath.Join(base, "proj")
	rules := `{"allow":[],"deny":[],"addDirs":["` + base + `/bg",7]}`
	c := clientWith(t, proj, []string{envRelaunchDirs + `=["` + base + `/re", null, "../cli"]`, envBgRules + "=" + rules, "CLAUDE_CODE_SESSION_KIND=bg"},
		"--add-dir", base+"/cli")
	got := c.Added(envOf("CLAUDECODE", "1"))
	want := []string{base + "/bg", base + "/re", base + "/cli"}
	if !slices.Equal(got.Dirs, want) || got.Problem != "" {
		t.Errorf("got %q (problem %q), want %q", got.Dirs, got.Problem, want)
	}
}

// A value the client reads and skillwire cannot read as it does is told,
// never taken as nothing. One the client ignores adds nothing.
func TestAnEnvironmentThatCannotBeReadAsTheClientReadsItIsTold(t *testing.T) {
	base := t.TempDir()
	for _, tc := range []struct {
		name, kv, want string
		dirs           int
	}{
		{"not JSON", envRelaunchDirs + "=[/x", problemRelaunch, 0},
		{"trailing bytes", envRelaunchDirs + `=["/x"] []`, problemRelaunch, 0},
		{"not UTF-8", envRelaunchDirs + "=[\"/x\xff\"]", problemRelaunch, 0},
		{"a lone surrogate", envRelaunchDirs + `=["/x\ud800"]`, problemRelaunch, 0},
		{"a NUL", envRelaunchDirs + `=["/x\u0000y", "/y"]`, problemRelaunch, 1},
		{"control bytes are a path's", envRelaunchDirs + `=["/x\u001b[2J"]`, "", 1},
		{"huge", envRelaunchDirs + "=" + strings.Repeat("[", maxEnviron), problemEnviron, 0},
		{"an object is no list", envRelaunchDirs + `={"a":"/x"}`, "", 0},
		{"an empty path adds nothing", envRelaunchDirs + `=[""]`, "", 0},
		{"background rules without deny", envBgRules + `={"allow":[],"addDirs":["/x"]}`, "", 0},
		{"background rules not JSON", envBgRules + `={`, problemBackground, 0},
		{"background keys are exact", envBgRules + `={"allow":[],"deny":[],"AddDirs":["/x"]}`, "", 0},
		{"background addDirs repeated, the last wins", envBgRules + `={"allow":[],"deny":[],"addDirs":["/x"],"addDirs":[]}`, "", 0},
		{"the first of a repeated name is read", envRelaunchDirs + `=["/y"]` + "\x00" + envRelaunchDirs + `=[`, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kvs := strings.Split(tc.kv, "\x00")
			got := clientWith(t, base, kvs).Added(envOf("CLAUDECODE", "1"))
			if got.Problem != tc.want || len(got.Dirs) != tc.dirs {
				t.Errorf("got %q, problem %q; want %d dirs, problem %q", got.Dirs, got.Problem, tc.dirs, tc.want)
			}
		})
	}
	t.Run("no environ", func(t *testing.T) {
		ps := hookChain("claude", "/x/claude", base, "--add-dir", "/abs", "rel")
		ps[0].noEnviron = true
		got := Client{Proc: newFakeProc(t, ps...).dir, Parent: 200}.Added(envOf("CLAUDECODE", "1"))
		if got.Problem != problemEnviron || !slices.Equal(got.Dirs, []string{"/abs"}) {
			t.Errorf("got %q, problem %q", got.Dirs, got.Problem)
		}
	})
}

// The client reads a relative path against the folder it started in. It
// moves for --worktree (into .claude/worktrees/NAME) before any hook runs.
// So a relative path is read against the working directory now only when
// the $PWD it started with is that directory.
func TestARelativeFolderIsReadOnlyAgainstTheFolderTheClientStartedIn(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	wt := filepath.Join(proj, ".claude", "worktrees", "wt1")
	must(t, os.MkdirAll(wt, 0o755))
	must(t, os.MkdirAll(filepath.Join(base, "extra"), 0o755))
	must(t, os.Symlink(proj, filepath.Join(base, "link")))
	for _, tc := range []struct {
		name, cwd string
		env       []string
		want      string
	}{
		{"started where it is", proj, nil, ""},
		{"started through a link to where it is", proj, []string{"PWD=" + base + "/link"}, ""},
		{"moved into a worktree", wt, []string{"PWD=" + proj}, problemLaunchDir},
		{"started without $PWD", proj, []string{"PWD="}, problemLaunchDir},
		{"a relative $PWD", proj, []string{"PWD=proj"}, problemLaunchDir},
		{"a $PWD that is gone", proj, []string{"PWD=" + base + "/gone"}, problemLaunchDir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := hookChain("claude", "/x/claude", tc.cwd, "--add-dir", "../extra", base+"/extra")
			ps[0].env = append(tc.env, ps[0].env...) // the first PWD is read
			got := Client{Proc: newFakeProc(t, ps...).dir, Parent: 200}.Added(envOf("CLAUDECODE", "1"))
			if got.Problem != tc.want || !slices.Equal(got.Dirs, []string{base + "/extra"}) {
				t.Errorf("got %q, problem %q; want problem %q", got.Dirs, got.Problem, tc.want)
			}
		})
	}
}

func FuzzAddedEnvironment(f *testing.F) {
	f.Add(`["/a","b",1,null]`, `{"allow":[],"deny":[],"addDirs":["/c"]}`)
	f.Add(`[`, `{"allow":[],"deny":[],"addDirs":["\ud800"]}`)
	f.Fuzz(func(t *testing.T, relaunch, bg string) {
		for _, read := range []func(string) ([]string, bool){relaunchDirs, backgroundDirs} {
			for _, v := range []string{relaunch, bg} {
				ds, _ := read(v)
				for _, d := range ds {
					if d == "" || !utf8.ValidString(d) || strings.ContainsRune(d, utf8.RuneError) || strings.IndexByte(d, 0) >= 0 {
						t.Fatalf("%q read from %q", d, v)
					}
				}
			}
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
