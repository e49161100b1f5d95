package clientproc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Claude Code 2.1.328's option parser (Commander) reads `--plugin-dir
// <path>` and `--plugin-dir-no-mcp <path>` so. Each takes the next
// argument whatever it is, one per flag. The flag may repeat.
// `--plugin-dir=x` is one value. Any option that takes a value takes the
// next argument whatever it is, "--" included. So
// `--append-system-prompt -- --plugin-dir x` loads x.
func TestPluginDirArgsReadsTheFlagsAsTheClientsParserDoes(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	cases := []struct {
		name string
		argv []string
		want PluginFlags
	}{
		{"one value per flag", []string{"claude", "--plugin-dir", "a", "b", "-p", "c"}, PluginFlags{Dirs: []string{"a"}}},
		{"repeated", []string{"claude", "--plugin-dir", "a", "--plugin-dir", "b"}, PluginFlags{Dirs: []string{"a", "b"}}},
		{"the value whatever it is", []string{"claude", "--plugin-dir", "-x", "--plugin-dir", "--model"}, PluginFlags{Dirs: []string{"-x", "--model"}}},
		{"= form", []string{"claude", "--plugin-dir=a=b", "--plugin-dir="}, PluginFlags{Dirs: []string{"a=b", ""}}},
		{"no-mcp variant", []string{"claude", "--plugin-dir-no-mcp", "a", "--plugin-dir-no-mcp=b", "--plugin-dir", "c"}, PluginFlags{Dirs: []string{"c"}, NoMCP: []string{"a", "b"}}},
		{"no value", []string{"claude", "--plugin-dir"}, PluginFlags{}},
		{"-- as another option's value ends nothing", []string{"claude", "--append-system-prompt", "--", "--plugin-dir", "a"}, PluginFlags{Dirs: []string{"a"}}},
		{"-- ends nothing", []string{"claude", "--", "--plugin-dir", "a", "--plugin-url", "u", "--await-initialize"}, PluginFlags{Dirs: []string{"a"}, URL: true, Initialize: true}},
		{"--opt=-- ends nothing", []string{"claude", "--append-system-prompt=--", "--plugin-dir-no-mcp", "a"}, PluginFlags{NoMCP: []string{"a"}}},
		{"-- as the flag's value", []string{"claude", "--plugin-dir", "--", "--plugin-dir", "b"}, PluginFlags{Dirs: []string{"--", "b"}}},
		{"the flag as the flag's value is also the flag", []string{"claude", "--plugin-dir", "--plugin-dir", "b"}, PluginFlags{Dirs: []string{"--plugin-dir", "b"}}},
		{"a value of a short option", []string{"claude", "-n", "--", "--plugin-dir=a"}, PluginFlags{Dirs: []string{"a"}}},
		{"argv[0] is the program", []string{"--plugin-dir", "a"}, PluginFlags{}},
		{"a prefix is not the flag", []string{"claude", "--plugin-dirs", "a", "--plugin-di", "b"}, PluginFlags{}},
		{"a value reading like the flag is the flag", []string{"claude", "--model", "--plugin-dir", "a"}, PluginFlags{Dirs: []string{"a"}}},
		{"--plugin-url", []string{"claude", "--plugin-url", "https://x.example/p.zip"}, PluginFlags{URL: true}},
		{"--plugin-url=", []string{"claude", "--plugin-url=u"}, PluginFlags{URL: true}},
		{"--await-initialize", []string{"claude", "--await-initialize"}, PluginFlags{Initialize: true}},
		{"control bytes are data", []string{"claude", "--plugin-dir", "a\nb\x1b[2J\x00", "--plugin-dir", "\xff"}, PluginFlags{Dirs: []string{"a\nb\x1b[2J\x00", "\xff"}}},
		{"huge", []string{"claude", "--plugin-dir", huge}, PluginFlags{Dirs: []string{huge}}},
		{"garbage", []string{"claude", "=", "--=", "-", "--plugin-dir\x00", "="}, PluginFlags{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := PluginDirArgs(c.argv)
			if !slices.Equal(got.Dirs, c.want.Dirs) || !slices.Equal(got.NoMCP, c.want.NoMCP) || got.URL != c.want.URL || got.Initialize != c.want.Initialize {
				t.Errorf("PluginDirArgs(%.80q) = %+.80v, want %+.80v", c.argv, got, c.want)
			}
		})
	}
}

func FuzzPluginDirArgs(f *testing.F) {
	f.Add("claude\x00--plugin-dir\x00a\x00--plugin-dir=b\x00--plugin-dir-no-mcp\x00c\x00--\x00d")
	f.Add("\x00\x00--plugin-dir")
	f.Fuzz(func(t *testing.T, cmdline string) {
		argv := splitArgs([]byte(cmdline))
		got := PluginDirArgs(argv)
		var flags int
		for i := 1; i < len(argv); i++ {
			n, _, eq := strings.Cut(argv[i], "=")
			if (n == "--plugin-dir" || n == "--plugin-dir-no-mcp") && (eq || i+1 < len(argv)) {
				flags++
			}
		}
		if n := len(got.Dirs) + len(got.NoMCP); n != flags {
			t.Fatalf("%d values read of %d flags with a value in %q", n, flags, argv)
		}
		for _, v := range append(got.Dirs, got.NoMCP...) {
			if !slices.Contains(argv, v) && !slices.Contains(argv, "--plugin-dir="+v) && !slices.Contains(argv, "--plugin-dir-no-mcp="+v) {
				t.Fatalf("%q is no argument of %q", v, argv)
			}
		}
	})
}

// The plugin folders are read as the client reads them. They come from its
// command line and from the list it settles into CLAUDE_CODE_PLUGIN_DIRS
// for its hooks. What skillwire cannot read so is told, never dropped in
// silence.
func TestTheClientsPluginFoldersAreReadAndTheUnreadableTold(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	for _, d := range []string{"proj", "a", "b", "c"} {
		must(t, os.Mkdir(filepath.Join(base, d), 0o755))
	}
	many := []string{}
	for range MaxPluginDirs + 1 {
		many = append(many, "--plugin-dir", base+"/a/"+strings.Repeat("x", len(many)+1))
	}
	cases := []struct {
		name    string
		argv    []string
		settled string
		want    []string
		problem string
	}{
		{"flags and the settled list", []string{"--plugin-dir", base + "/a/", "--plugin-dir=../b", "--plugin-dir-no-mcp", base + "/a"}, base + "/c:" + base + "/b", []string{base + "/a", base + "/b", base + "/c"}, ""},
		{"an empty settled list", nil, "", nil, ""},
		{"empty entries skipped", nil, "::" + base + "/c:", []string{base + "/c"}, ""},
		{"a dotted flag value not proven", []string{"--plugin-dir", base + "/nowhere/../a"}, "", nil, problemDotted},
		{"a dotted flag value proven", []string{"--plugin-dir", base + "/b/../a"}, "", []string{base + "/a"}, ""},
		{"a tilde flag value", []string{"--plugin-dir", "~/a"}, "", nil, problemTilde},
		{"a relative settled entry", nil, "a:" + base + "/c", []string{base + "/c"}, problemPluginEnv},
		{"a dotted settled entry", nil, base + "/c/../a", nil, problemPluginEnv},
		{"a tilde settled entry", nil, "~/a", nil, problemPluginEnv},
		{"control bytes in a settled entry are a path", nil, base + "/c\n\x1b[2J", []string{base + "/c\n\x1b[2J"}, ""},
		{"a zip", []string{"--plugin-dir", base + "/p.ZIP"}, base + "/q.zip", nil, problemPluginZip},
		{"a url", []string{"--plugin-url", "https://x.example/p.zip"}, "", nil, problemPluginURL},
		{"an initialize request", []string{"--await-initialize", "--plugin-dir", base + "/a"}, "", []string{base + "/a"}, problemPluginInit},
		{"too many", many, "", nil, problemPluginTooMany},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := []string{"CLAUDECODE", "1"}
			if c.settled != "" || c.name == "an empty settled list" {
				env = append(env, envPluginDirs, c.settled)
			}
			got := clientWith(t, proj, nil, c.argv...).Added(envOf(env...)).Plugins
			if c.name == "too many" {
				if len(got.Dirs) != MaxPluginDirs || got.Problem != c.problem {
					t.Errorf("%d folders, problem %q; want %d, %q", len(got.Dirs), got.Problem, MaxPluginDirs, c.problem)
				}
				return
			}
			if !slices.Equal(got.Dirs, c.want) || got.Problem != c.problem {
				t.Errorf("got %q, problem %q; want %q, %q", got.Dirs, got.Problem, c.want, c.problem)
			}
			if told := got.Told(); (told != "") != (c.problem != "") || strings.ContainsAny(told, "\n\x1b") {
				t.Errorf("told %q", told)
			}
		})
	}
}

// A relative --plugin-dir is read only against the folder the client
// started in, proven by its $PWD, as an --add-dir is.
func TestARelativePluginFolderIsReadOnlyAgainstTheProvenStartFolder(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	wt := filepath.Join(proj, ".claude", "worktrees", "wt1")
	must(t, os.MkdirAll(wt, 0o755))
	must(t, os.MkdirAll(filepath.Join(base, "pd"), 0o755))
	ps := hookChain("claude", "/x/claude", wt, "--worktree", "wt1", "--plugin-dir", "../pd")
	ps[0].env = []string{"PWD=" + proj}
	got := Client{Proc: newFakeProc(t, ps...).dir, Parent: 200}.Added(envOf("CLAUDECODE", "1"))
	if len(got.Plugins.Dirs) != 0 || got.Plugins.Problem != problemLaunchDir {
		t.Errorf("got %q, problem %q; want none, %q", got.Plugins.Dirs, got.Plugins.Problem, problemLaunchDir)
	}
	if told := got.Told(); !strings.Contains(told, "--plugin-dir") || strings.Contains(told, "every folder this session added") {
		t.Errorf("told %q", told)
	}
}

// When the client's command line cannot be read, neither its added
// folders nor its plugin folders are known. One line says so.
func TestAnUnreadableClientIsToldOnceForFoldersAndPlugins(t *testing.T) {
	got := Client{Proc: t.TempDir(), Parent: 200}.Added(envOf("CLAUDECODE", "1"))
	if got.Problem == "" || got.Plugins.Problem != got.Problem {
		t.Fatalf("problems %q, %q", got.Problem, got.Plugins.Problem)
	}
	if told := got.Told(); strings.Count(told, "skillwire cannot observe") != 1 {
		t.Errorf("told %q", told)
	}
}

// A folder given only with --plugin-dir-no-mcp is loaded without its MCP
// servers. One given also with --plugin-dir is loaded with them. An entry
// of the settled list equal to a no-mcp folder is that folder: the client
// drops it (withoutPluginDirs). Any other entry is loaded with them.
func TestANoMCPPluginFolderIsKnownAsSuch(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	for _, d := range []string{"proj", "a", "b", "c"} {
		must(t, os.Mkdir(filepath.Join(base, d), 0o755))
	}
	argv := []string{"--plugin-dir-no-mcp", base + "/a/", "--plugin-dir-no-mcp=../b", "--plugin-dir", base + "/b", "--plugin-dir-no-mcp", base + "/a"}
	got := clientWith(t, proj, nil, argv...).Added(envOf("CLAUDECODE", "1", envPluginDirs, base+"/a:"+base+"/c")).Plugins
	if want := []string{base + "/b", base + "/a", base + "/c"}; !slices.Equal(got.Dirs, want) || !slices.Equal(got.NoMCP, []string{base + "/a"}) || got.Problem != "" {
		t.Errorf("got %q, no-mcp %q, problem %q", got.Dirs, got.NoMCP, got.Problem)
	}
}
