//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ModFolder is a plugin folder whose hooks/hooks.json may name a hooks
// module, hooks/register.js. The client runs that module in its own process:
// a mod.
type ModFolder struct {
	Name   string // .claude-plugin/plugin.json's name; none written when ""
	Source string // hooks/register.js, exporting register(on)
	// Unlisted writes hooks.json without "modules": the control. The module
	// file is there and the client never runs it.
	Unlisted bool
}

// Mod writes the folder at rel, relative to the world's root, and returns
// its path.
func (w *World) Mod(rel string, f ModFolder) string {
	w.t.Helper()
	if f.Name != "" {
		w.Write(rel+"/.claude-plugin/plugin.json", `{"name":"`+f.Name+`","version":"1.0.0","description":"an e2e mod"}`)
	}
	hooks := `{"modules":["./register.js"]}`
	if f.Unlisted {
		hooks = `{"hooks":{}}`
	}
	w.Write(rel+"/hooks/hooks.json", hooks)
	w.Write(rel+"/hooks/register.js", f.Source)
	return filepath.Join(w.Root, rel)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// markerModule is a hooks module that passes every event named on
// unchanged. It writes marker with the events it heard so far, joined by
// commas, in the order it heard them.
func markerModule(marker string, events ...string) string {
	var b strings.Builder
	b.WriteString("const heard = [];\nexport function register(on) {\n")
	for _, ev := range events {
		fmt.Fprintf(&b, "  on(%s, async ($, e, next) => {\n    heard.push(%s);\n    await $.fs.write(%s, heard.join(\",\"));\n    return next(e);\n  });\n",
			jsString(ev), jsString(ev), jsString(marker))
	}
	b.WriteString("}\n")
	return b.String()
}

// handlerModule is a hooks module of one handler, given as the source of an
// on(...) call. The handler may call mark(text), which writes marker, and
// read the file at SKILL.
func handlerModule(handler, marker, skill string) string {
	return "const MARKER = " + jsString(marker) + ";\nconst SKILL = " + jsString(skill) + ";\n" +
		"export function register(on) {\n  " + handler + "\n}\n"
}

// Marker is the text a module wrote, "" when it never ran.
func Marker(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// modLine is how the client's debug log judges a plugin's hooks module:
// "plugin.register: pd (user, pd@inline), judged by core alone: admitted".
var modLine = regexp.MustCompile(`plugin\.register: \S+ \((\w+), (\S+)\), judged by ([^:]+): ([^\n]*)`)

// ModJudged is the client's judgement of the hooks module of plugin id
// ("pd@inline"), as its debug log says it: "admitted", or "hooks module left
// out by cc-plugin-sec-default". It is "" when the log judges none. The
// tier is the chain's ("user", "prepend", "builtin").
func ModJudged(debug, id string) (tier, judgement string) {
	for _, m := range modLine.FindAllStringSubmatch(debug, -1) {
		if m[2] == id {
			return m[1], m[4]
		}
	}
	return "", ""
}

// ModLoaded reports whether the debug log says the client loaded the hooks
// module of plugin id into a worker:
// "hooks module pd@inline loaded (worker, environment 2, tier user); events: …".
func ModLoaded(debug, id string) bool {
	return regexp.MustCompile(`hooks module ` + regexp.QuoteMeta(id) + ` loaded \(worker, environment \d+, tier \w+\)`).MatchString(debug)
}

// managedRun is how a case's client reads managed settings from a folder of
// the world's, SKILLWIRE_MANAGED_DIR. The client reads them only at
// /etc/claude-code. So it runs in a private mount namespace: an overlay on
// /etc, with the world's folder bound at /etc/claude-code. The machine's /etc
// is never written.
const managedRun = `set -e
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc
mkdir -p /etc/claude-code
mount --bind "$2" /etc/claude-code
shift 2
exec "$@"
`

// ClaudeManaged is Claude with the world's managed folder read as the
// client's managed settings.
func (w *World) ClaudeManaged(m *Model, r Run) *Result {
	w.t.Helper()
	if os.Geteuid() != 0 {
		w.t.Fatal("a managed case mounts in a private namespace and must run as root (CI does)")
	}
	// The overlay's options are a comma-separated list, and a subtest's
	// name puts commas in t.TempDir's path. So its folders are elsewhere.
	ns, err := os.MkdirTemp("", "swmods")
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { os.RemoveAll(ns) })
	managed := filepath.Join(w.Root, "managed")
	for _, d := range []string{filepath.Join(ns, "upper"), filepath.Join(ns, "work"), managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			w.t.Fatal(err)
		}
	}
	return w.claudeVia(m, r, "unshare", "--mount", "--propagation", "private", "sh", "-c", managedRun, "sh", ns, managed)
}
