package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
)

// A recorded trace: strace 6.1, -f -y, of the client and its children.
// 100 is the client. 101 is its thread, 102 a child that execs a shell.
const snippet = `100 execve("/c/claude", ["claude", "-p", "hi"], 0x7ffd /* 20 vars */) = 0
100 openat(AT_FDCWD</w/proj>, "/w/home/.claude/settings.json", O_RDONLY|O_CLOEXEC) = 3</w/home/.claude/settings.json>
100 clone3({flags=CLONE_VM|CLONE_FS|CLONE_THREAD, exit_signal=0, stack=0x7f, stack_size=0x7ff000}, 88 <unfinished ...>
101 statx(AT_FDCWD</w/proj>, ".claude/skills/foo", AT_STATX_SYNC_AS_STAT, STATX_ALL, {stx_mask=STATX_ALL, stx_mode=S_IFDIR|0755, ...}) = 0
100 <... clone3 resumed> => {parent_tid=[101]}, 88) = 101
101 openat(3</w/proj/.claude/skills>, "foo/SKILL.md", O_RDONLY <unfinished ...>
100 vfork( <unfinished ...>
101 <... openat resumed>) = 4</w/proj/.claude/skills/foo/SKILL.md>
102 execve("/bin/sh", ["/bin/sh", "-c", "cat /w/proj/x"], 0x55 /* 20 vars */) = 0
100 <... vfork resumed>) = 102
102 openat(AT_FDCWD</w/proj>, "/w/proj/x", O_RDONLY) = 3</w/proj/x>
100 openat(AT_FDCWD</w/proj>, "/w/proj/missing", O_RDONLY) = -1 ENOENT (No such file or directory)
100 openat(AT_FDCWD</w/proj>, "/w/home/.claude/.claude.json.tmp.100.ab", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 5</w/home/.claude/.claude.json.tmp.100.ab>
100 newfstatat(5</w/home/.claude/.claude.json.tmp.100.ab>, "", {st_mode=S_IFREG|0644, st_size=0, ...}, AT_EMPTY_PATH) = 0
100 statx(12</w/tmp/t/b.output>(deleted), "", AT_STATX_SYNC_AS_STAT|AT_EMPTY_PATH, STATX_ALL, {stx_mask=STATX_ALL, stx_mode=S_IFREG|0644, ...}) = 0
100 readlinkat(AT_FDCWD</w/proj>, "we\"ird\n\76name", "x", 4095) = 1
100 readlink("/w/proj/.claude/agents/a.md", 0x7f, 4095) = -1 EINVAL (Invalid argument)
100 openat(AT_FDCWD, "rel", O_RDONLY) = 6</w/proj/rel>
100 openat2(AT_FDCWD</w/proj>, "/w/proj/CLAUDE.md", {flags=O_RDONLY|O_CLOEXEC, resolve=RESOLVE_NO_SYMLINKS}, 24) = 7</w/proj/CLAUDE.md>
100 openat(AT_FDCWD</w/proj>, "/w/proj/cut", O_RDONLY <unfinished ...>
100 +++ killed by SIGKILL +++
100 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=102} ---
`

func TestTheTraceParserKeepsTheClientsSuccessfulReads(t *testing.T) {
	var got []string
	for _, a := range traceReads(strings.NewReader(snippet)) {
		p := a.Path
		if p == "" {
			p = "?" + a.Unknown
		}
		got = append(got, a.Call+" "+p+" "+a.Prog)
	}
	want := []string{
		"execve /c/claude ",
		"openat /w/home/.claude/settings.json /c/claude",
		"statx /w/proj/.claude/skills/foo /c/claude",
		"openat /w/proj/.claude/skills/foo/SKILL.md /c/claude",
		"execve /bin/sh /c/claude", // the client's child, before its exec
		"openat /w/proj/x /bin/sh",
		"newfstatat /w/home/.claude/.claude.json.tmp.100.ab /c/claude",
		"statx /w/tmp/t/b.output /c/claude", // a descriptor on a file since unlinked
		"readlinkat /w/proj/we\"ird\n>name /c/claude",
		`openat ?a relative path against a directory strace did not name: AT_FDCWD "rel" /c/claude`,
		"openat2 /w/proj/CLAUDE.md /c/claude",
	}
	if !slices.Equal(got, want) {
		t.Errorf("reads:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseCallSkipsQuotesBracketsAndDescriptorPaths(t *testing.T) {
	c, ok := parseCall(`openat(3</a, b\76c>, "x, \")y", O_RDONLY) = 4</a, b\76c/x, ")y>`)
	if !ok || len(c.args) != 3 || c.args[1] != `"x, \")y"` || !strings.HasPrefix(c.ret, "4<") {
		t.Fatalf("parseCall: %v %q", ok, c.args)
	}
	if p, ok := fdPath(c.args[0]); !ok || p != "/a, b>c" {
		t.Errorf("fdPath: %q %v", p, ok)
	}
	for _, s := range []string{`"abc"...`, `0x7ffe`, `"a\x2fb\\c"`} {
		p, ok := unquote(s)
		t.Logf("%s -> %q %v", s, p, ok)
		if s == `"a\x2fb\\c"` && (!ok || p != `a/b\c`) {
			t.Errorf("unquote(%s) = %q, %v", s, p, ok)
		}
		if s != `"a\x2fb\\c"` && ok {
			t.Errorf("unquote(%s) took a string strace cut, or no string", s)
		}
	}
	if _, ok := parseCall(`openat(AT_FDCWD, "x", O_RDONLY`); ok {
		t.Errorf("an unfinished call parsed")
	}
}

func TestOpenReadsLeavesWritesAndCreatesOut(t *testing.T) {
	for flags, want := range map[string]bool{
		"O_RDONLY|O_CLOEXEC":              true,
		"O_RDWR":                          true,
		"O_RDONLY|O_NONBLOCK|O_DIRECTORY": true,
		"O_PATH":                          true,
		"O_WRONLY|O_APPEND":               false,
		"O_RDWR|O_CREAT|O_CLOEXEC":        false,
	} {
		if got := openReads("openat", flags); got != want {
			t.Errorf("openReads(%s) = %v", flags, got)
		}
	}
	if !openReads("openat2", "{flags=O_RDONLY, resolve=0}") || openReads("openat2", "{flags=O_WRONLY|O_CREAT, mode=0644}") {
		t.Errorf("openat2's flags misread")
	}
}

func TestNoisePatternsMatchByComponent(t *testing.T) {
	a := map[string]string{"config": "/w/home/.claude", "root": "/w"}
	if matchNoise([]noiseEntry{{"stat:/a/b", "s"}}, "/a/b", []string{"statx", "openat"}, a) != nil ||
		matchNoise([]noiseEntry{{"stat:/a/b", "s"}}, "/a/b", []string{"statx"}, a) == nil {
		t.Errorf("a stat: pattern matches by the calls made")
	}
	if matchNoise([]noiseEntry{{"dir:/a/b", "d"}}, "/a/b", []string{"statx", "openat"}, a) != nil ||
		matchNoise([]noiseEntry{{"dir:/a/b", "d"}}, "/a/b", []string{"statx", dirOpen, pathOpen}, a) == nil {
		t.Errorf("a dir: pattern matches by the calls made")
	}
	if r := traceReads(strings.NewReader(`7 openat(AT_FDCWD</w>, "/a/b", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3</a/b>` + "\n" +
		`7 openat(AT_FDCWD</w>, "/a/c", O_RDONLY|O_LARGEFILE|O_CLOEXEC|O_PATH) = 3</a/c>` + "\n")); len(r) != 2 || r[0].Call != dirOpen || r[1].Call != pathOpen {
		t.Errorf("a directory's open is not told apart: %+v", r)
	}
	list := []noiseEntry{{"{config}/projects/*/*.jsonl", "t"}, {"**/.git/**", "g"}, {"{state}/**", "s"}, {"{root}/debug-*.log", "d"}}
	for p, want := range map[string]string{
		"/w/home/.claude/projects/-w-proj/1.jsonl":          "t",
		"/w/home/.claude/projects/-w-proj/memory/MEMORY.md": "",
		"/w/proj/.git/HEAD":                                 "g",
		"/w/proj/sub/.git/refs/heads/main":                  "g",
		"/w/proj/.gitignore":                                "",
		"/w/debug-12.log":                                   "d",
		"/w/home/.claude/skillwire/store.db":                "", // no {state} anchor given
	} {
		got := ""
		if n := matchNoise(list, p, []string{"openat"}, a); n != nil {
			got = n.Why
		}
		if got != want {
			t.Errorf("%s matched %q, want %q", p, got, want)
		}
	}
}

// The default memory folder's MEMORY.md lies within the transcripts'
// noise, and the noise never covers it; the memory folder's other files
// stay noise (the model reads them with its tools).
func TestTheNoiseLeavesTheMemoryIndexToTheWatch(t *testing.T) {
	a := map[string]string{"config": "/w/home/.claude", "home": "/w/home", "root": "/w"}
	for p, noisy := range map[string]bool{
		"/w/home/.claude/projects/-w-proj/memory/MEMORY.md":   false,
		"/w/home/.claude/projects/-w-proj/memory/topic.md":    true,
		"/w/home/.claude/projects/-w-proj/1.jsonl":            true,
		"/w/home/.claude/projects/-w-proj/x/memory/MEMORY.md": true,
	} {
		if got := readNoiseOf(p, []string{"openat"}, a) != nil; got != noisy {
			t.Errorf("%s: noise %v, want %v", p, got, noisy)
		}
	}
}

// The matcher on a laid-out world: its roots cover candidates and the folders
// above them, not a file beside them. A path out of scope is not judged.
func TestTheOracleNamesWhatNoRootHolds(t *testing.T) {
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	cfg := filepath.Join(home, ".claude")
	for rel, text := range map[string]string{
		"home/.claude/skills/foo/SKILL.md": "---\nname: foo\n---\n",
		"home/.claude/settings.json":       "{}",
		"home/.claude/loop.md":             "loop",
		"proj/CLAUDE.md":                   "@docs/notes.md\n",
		"proj/docs/notes.md":               "notes",
		"proj/.claude/unknown.json":        "{}",
		"proj/tasks.md":                    "tasks",
		"plug/.claude-plugin/plugin.json":  `{"name":"plug"}`,
		"plug/skills/p/SKILL.md":           "---\nname: p\n---\n",
	} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../tasks.md", filepath.Join(proj, ".claude", "loop.md")); err != nil {
		t.Fatal(err)
	}
	start := clientStart{dir: proj, args: []string{"-p", "hi", "--plugin-dir", filepath.Join(root, "plug")},
		env: []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + cfg, "PWD=" + proj, "SKILLWIRE_MANAGED_DIR=" + filepath.Join(root, "managed")}}
	wd, err := watchedOf(start)
	if err != nil {
		t.Fatal(err)
	}
	const client = "/c/claude"
	var reads []access
	for _, rel := range []string{
		"home/.claude/skills/foo/SKILL.md", "home/.claude/skills", "home", "proj", "home/.claude/settings.json",
		"home/.claude/loop.md", "proj/CLAUDE.md", "proj/docs/notes.md", "proj/docs", "plug/skills/p/SKILL.md",
		"proj/.claude/unknown.json", "home/.claude/projects/-p/1.jsonl",
		"proj/.claude/loop.md", "proj/tasks.md", // a watched link, and its target "proj/read-by-a-tool.txt",
	} {
		reads = append(reads, access{Call: "openat", Path: filepath.Join(root, rel), Prog: client})
	}
	reads = append(reads,
		access{Call: "openat", Path: "/etc/passwd", Prog: client},
		access{Call: "openat", Path: filepath.Join(proj, "by-a-hook"), Prog: "/bin/sh"},
		access{Call: "openat", Unknown: "a relative path", Prog: client})
	v := judge(reads, client, wd, map[string]string{"config": cfg}, []string{filepath.Join(proj, "read-by-a-tool.txt")}, "")
	want := []string{anomaly.QuoteBytes([]byte(filepath.Join(proj, ".claude/unknown.json"))) + " (openat)"}
	if !slices.Equal(v.Uncovered, want) {
		t.Errorf("uncovered %q, want only %q", v.Uncovered, want)
	}
	if len(v.Unknown) != 1 {
		t.Errorf("unknown %q, want the one relative path", v.Unknown)
	}
}

func TestGivenPluginDirsReadsBothSpellings(t *testing.T) {
	got := givenPluginDirs([]string{"-p", "x", "--plugin-dir", "/a/p.zip", "--plugin-dir-no-mcp=rel", "--plugin-dir"}, "/w")
	if want := []string{"/a/p.zip", "/w/rel"}; !slices.Equal(got, want) {
		t.Errorf("givenPluginDirs = %q, want %q", got, want)
	}
}
