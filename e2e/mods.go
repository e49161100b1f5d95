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
