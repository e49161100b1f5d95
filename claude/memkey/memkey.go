// Package memkey names a project's auto memory folder as Claude Code
// 2.1.332 does: <config>/projects/<key>/memory (e2e/memory_test.go).
package memkey

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/walker"
)

// Dir is the memory folder of the project at base in the config folder
// cfg: cfg/projects/<key>/memory. It is "" when either is unknown.
func Dir(cfg, base string) string {
	if cfg == "" || base == "" {
		return ""
	}
	return pathname.Join(pathname.Join(pathname.Join(cfg, "projects"), Of(base)), "memory")
}

// Env are the client's variables that move a project's memory (2.1.332;
// e2e TestAMovedMemoryFolderIsWatched).
type Env struct {
	// Remote: $CLAUDE_CODE_REMOTE_MEMORY_DIR, absolute. It stands for the
	// config folder in the memory folders' paths.
	Remote string
	// Cowork: $CLAUDE_COWORK_MEMORY_PATH_OVERRIDE, absolute. It is the
	// memory folder itself, as the client cleans it.
	Cowork string
	// DirName: $CLAUDE_CODE_PROJECT_DIR_NAME, of the client's shape. The
	// client keys the project by it in the config folder when
	// CLAUDE_CONFIG_DIR is set; it is watched whenever given.
	DirName string
}

// isDirName reports whether v is of the client's shape for a project
// folder name it is given: ^[A-Za-z0-9_-]{1,64}$, and none of the names
// it refuses, /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/i. Written out, as
// a compiled pattern costs every hook process at its start.
func isDirName(v string) bool {
	if len(v) == 0 || len(v) > 64 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	switch l := strings.ToLower(v); {
	case l == "con" || l == "prn" || l == "aux" || l == "nul":
		return false
	case len(l) == 4 && (l[:3] == "com" || l[:3] == "lpt") && '0' <= l[3] && l[3] <= '9':
		return false
	}
	return true
}

// EnvOf reads Env from getenv as the client does: a folder that is not
// absolute, or a name of another shape, is not taken.
func EnvOf(getenv func(string) (string, bool)) Env {
	var e Env
	if v, ok := getenv("CLAUDE_CODE_REMOTE_MEMORY_DIR"); ok && strings.HasPrefix(v, "/") {
		e.Remote = v
	}
	if v, ok := getenv("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"); ok {
		e.Cowork = cowork(v)
	}
	if v, ok := getenv("CLAUDE_CODE_PROJECT_DIR_NAME"); ok && isDirName(v) {
		e.DirName = v
	}
	return e
}

// cowork is the memory folder the client takes from v: absolute, three
// bytes at least, no NUL, cleaned as its path.normalize cleans it ("" for
// none). The clean is the client's: it reads the cleaned path.
func cowork(v string) string {
	if !strings.HasPrefix(v, "/") || len(v) < 3 || strings.ContainsRune(v, 0) {
		return ""
	}
	return filepath.Clean(v)
}

// Dirs are the memory folders of the project at base in the config
// folder cfg and e's folders. base is the repository's top, else the
// project. A linked worktree's main repository is keyed too (Bases).
// The client reads one of them; watching more is safe.
func Dirs(base, cfg string, e Env) []string {
	var out []string
	for _, b := range Bases(base) {
		for _, c := range []string{cfg, e.Remote} {
			if d := Dir(c, b); d != "" {
				out = append(out, d)
			}
		}
	}
	if e.DirName != "" && cfg != "" && base != "" {
		out = append(out, pathname.Join(pathname.Join(pathname.Join(cfg, "projects"), e.DirName), "memory"))
	}
	if e.Cowork != "" {
		out = append(out, e.Cowork)
	}
	return out
}

// Folder is a memory folder a settings file moves auto memory to. Project:
// the project's settings name it.
type Folder struct {
	Path    string
	Project bool
}

// MovedBy reads the managed settings (in managed, "" for none: its
// managed-settings.json and each drop-in of managed-settings.d), the
// user's (in cfg) and the project's (in project/.claude, project "" for
// none). It gives each folder their autoMemoryDirectory names (Moved).
// Each file that names one counts: the client takes the first of managed,
// local, project and user, and watching more than it loads is safe. A file
// not read whole, or not JSON, names none; it is a candidate of its own,
// told as such.
func MovedBy(cfg, project, home, managed string) []Folder {
	type place struct {
		dir, sub string
		names    []string
		project  bool
	}
	places := []place{{cfg, ".", []string{"settings.json"}, false}}
	if project != "" {
		places = append(places, place{project, ".claude", []string{"settings.json", "settings.local.json"}, true})
	}
	if managed != "" {
		places = append(places, place{managed, ".", []string{"managed-settings.json"}, false}, place{managed, "managed-settings.d", dropIns(managed), false})
	}
	var out []Folder
	for _, pl := range places {
		out = append(out, movedIn(pl.dir, pl.sub, pl.names, home, pl.project)...)
	}
	return out
}

// MovedByFlags are the folders the --settings files move auto memory to.
// The client reads them after managed settings, before the others'.
func MovedByFlags(files []string, home string) []Folder {
	var out []Folder
	for _, f := range files {
		if i := strings.LastIndexByte(f, '/'); i > 0 {
			out = append(out, movedIn(f[:i], ".", []string{f[i+1:]}, home, false)...)
		}
	}
	return out
}

// movedIn are the folders the settings files names of dir/sub move auto
// memory to (Moved). A file not read whole, or not JSON, names none.
func movedIn(dir, sub string, names []string, home string, project bool) []Folder {
	var out []Folder
	reads, _ := walker.ReadFiles(dir, sub, names, config.MaxJSON)
	for _, r := range reads {
		if r.Missing || r.Reason != 0 {
			continue
		}
		if ex := config.WholeJSON(r.Data, int64(len(r.Data))); len(ex.Anomalies) == 0 {
			if m := Moved(ex.Canonical, home); m != "" {
				out = append(out, Folder{Path: m, Project: project})
			}
		}
	}
	return out
}

// dropIns are the .json files of managed/managed-settings.d, as listed.
func dropIns(managed string) []string {
	w := walker.Discover([]walker.RootSpec{{Path: pathname.Join(managed, "managed-settings.d"), Files: true}}, walker.DefaultConfig())[0]
	var out []string
	for _, c := range w.Candidates {
		if c.Kind == walker.KindFile && strings.HasSuffix(string(c.Name), ".json") {
			out = append(out, string(c.Name))
		}
	}
	return out
}

// Moved is the folder a settings file's autoMemoryDirectory moves auto
// memory to, "" when none. Claude Code 2.1.332 takes an absolute path, or
// one under "~/", from user, project and local settings, and ignores a
// relative one (e2e TestAMovedMemoryFolderIsWatched). The path is kept as
// given. settings is the file's canonical JSON.
func Moved(settings []byte, home string) string {
	var s struct {
		Dir *string `json:"autoMemoryDirectory"`
	}
	if json.Unmarshal(settings, &s) != nil || s.Dir == nil {
		return ""
	}
	switch d := *s.Dir; {
	case strings.HasPrefix(d, "/"):
		return d
	case strings.HasPrefix(d, "~/") && len(d) > 2 && strings.HasPrefix(home, "/"):
		return pathname.Join(home, d[2:])
	}
	return ""
}

// Of is Claude Code's folder name for a project path. Each UTF-16
// unit outside [a-zA-Z0-9] becomes '-'. A key over 200 is cut, and the
// path's hash added. A byte that is no UTF-8 counts as U+FFFD.
func Of(path string) string {
	var b strings.Builder
	var h int32
	for _, r := range path { // an invalid byte is utf8.RuneError, U+FFFD
		units := utf16.Encode([]rune{r})
		for _, u := range units {
			h = h*31 + int32(u) // the client's string hash, wrapping as it does
		}
		if r < 128 && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteString(strings.Repeat("-", len(units)))
		}
	}
	if k := b.String(); len(k) <= 200 {
		return k
	}
	return b.String()[:200] + "-" + strconv.FormatInt(max(int64(h), -int64(h)), 36)
}
