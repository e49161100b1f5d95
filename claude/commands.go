package claude

import (
	"encoding/json"
	"slices"
	"strings"
)

// Command is one thing a configuration makes Claude Code run or call without
// asking: a hook handler, the status line, a helper.
type Command struct {
	Source  string // "hooks", "statusLine", "fileSuggestion", "apiKeyHelper", …
	Event   string // hooks: the event name as written
	Matcher string // hooks: the matcher as written; "" when none
	Type    string // hooks: the handler type ("command", "http", "prompt", …)
	Command string // the command line; for an http hook its URL, for a prompt hook its prompt
}

// helperKeys are the settings keys whose string value is a command run by /bin/sh.
var helperKeys = []string{"apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper"}

// decodeCanonical reads a canonical form back. A form that does not decode
// reads as empty, so a damaged old form makes everything new, never less.
func decodeCanonical(canonical []byte) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(canonical, &m); err != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// SettingsCommands lists every command of a settings subset (its Canonical
// form): every hook handler of every event and matcher, then the status
// line, the file suggestion command and the helpers.
func SettingsCommands(canonical []byte) []Command {
	doc := decodeCanonical(canonical)
	cmds := hookCommands(doc["hooks"])
	for _, k := range []string{"statusLine", "fileSuggestion"} {
		if o, ok := doc[k].(map[string]any); ok {
			if c, ok := o["command"].(string); ok {
				cmds = append(cmds, Command{Source: k, Type: cfgString(o["type"]), Command: c})
			}
		}
	}
	for _, k := range helperKeys {
		if c, ok := doc[k].(string); ok {
			cmds = append(cmds, Command{Source: k, Command: c})
		}
	}
	return cmds
}

// hookCommands walks a hooks value (settings, plugin hooks.json or
// frontmatter): event → [ {matcher, hooks: [handler]} ]. A single object
// where a list belongs is read as a one-element list, so a shape Claude Code
// might accept is never silently passed over.
func hookCommands(hooks any) []Command {
	events, _ := hooks.(map[string]any)
	var cmds []Command
	for _, ev := range cfgKeys(events) {
		for _, g := range cfgList(events[ev]) {
			group, _ := g.(map[string]any)
			matcher := cfgString(group["matcher"])
			for _, h := range cfgList(group["hooks"]) {
				handler, ok := h.(map[string]any)
				if !ok {
					continue
				}
				c := Command{Source: "hooks", Event: ev, Matcher: matcher, Type: cfgString(handler["type"])}
				for _, k := range []string{"command", "url", "prompt"} {
					if s, ok := handler[k].(string); ok {
						c.Command = s
						break
					}
				}
				cmds = append(cmds, c)
			}
		}
	}
	return cmds
}

func cfgList(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case map[string]any:
		return []any{v}
	}
	return nil
}

func cfgString(v any) string {
	s, _ := v.(string)
	return s
}

func cfgKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// ScriptAnchor is what a script path is relative to.
type ScriptAnchor uint8

const (
	ScriptAbsolute   ScriptAnchor = iota + 1 // Path is absolute
	ScriptHome                               // ~/ or $HOME/
	ScriptProjectDir                         // $CLAUDE_PROJECT_DIR/
	ScriptPluginRoot                         // ${CLAUDE_PLUGIN_ROOT}/
)

// Script is a local file a command runs: its anchor and the path under it,
// exactly as written after shell quoting is removed (never cleaned).
type Script struct {
	Anchor ScriptAnchor
	Path   string
}

var scriptAnchors = []struct {
	prefix string
	anchor ScriptAnchor
}{
	{"$CLAUDE_PROJECT_DIR/", ScriptProjectDir}, {"${CLAUDE_PROJECT_DIR}/", ScriptProjectDir},
	{"$CLAUDE_PLUGIN_ROOT/", ScriptPluginRoot}, {"${CLAUDE_PLUGIN_ROOT}/", ScriptPluginRoot},
	{"$HOME/", ScriptHome}, {"${HOME}/", ScriptHome},
}

// scriptInterpreters run the script named by their first operand; `bash x.sh` runs
// x.sh as surely as `./x.sh` does.
var scriptInterpreters = []string{"bash", "bun", "dash", "deno", "node", "perl", "python", "python3", "ruby", "sh", "zsh"}

// CommandScript reports the local file a command line runs: its program, or
// the first operand of a known interpreter, when that word is a file path
// (absolute, ~/, $HOME/, $CLAUDE_PROJECT_DIR/, ${CLAUDE_PLUGIN_ROOT}/). A
// word whose meaning depends on other expansions is not reported.
func CommandScript(command string) (Script, bool) {
	words := cmdWords(command, 8)
	for len(words) > 0 && cmdAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return Script{}, false
	}
	w := words[0]
	if slices.Contains(scriptInterpreters, w.text) {
		w = cmdWord{}
		for _, o := range words[1:] {
			if !strings.HasPrefix(o.text, "-") {
				w = o
				break
			}
		}
	}
	return w.script()
}

// cmdWord is one word of a command line with its quotes removed.
type cmdWord struct {
	text      string
	tilde     bool // began with an unquoted ~/
	literal   bool // holds a $ or ` that the shell would not expand (single-quoted)
	expansion bool // holds an unquoted or double-quoted $, `, glob or escape we do not follow
}

func (w cmdWord) script() (Script, bool) {
	if w.literal || w.expansion || w.text == "" {
		return Script{}, false
	}
	sc := Script{}
	switch rest, _ := strings.CutPrefix(w.text, "~/"); {
	case w.tilde:
		sc = Script{Anchor: ScriptHome, Path: rest}
	case w.text[0] == '/':
		sc = Script{Anchor: ScriptAbsolute, Path: w.text}
	default:
		for _, a := range scriptAnchors {
			if rest, ok := strings.CutPrefix(w.text, a.prefix); ok {
				sc = Script{Anchor: a.anchor, Path: rest}
				break
			}
		}
	}
	// Any other expansion left in the path makes the file unknowable here.
	if sc.Anchor == 0 || sc.Path == "" || strings.ContainsAny(sc.Path, "$`") {
		return Script{}, false
	}
	return sc, true
}

func cmdAssignment(w cmdWord) bool {
	name, _, ok := strings.Cut(w.text, "=")
	if !ok || name == "" || w.literal {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// cmdWords splits the first simple command of a POSIX shell line into at
// most n words, removing quotes. It stops at the first operator.
func cmdWords(s string, n int) []cmdWord {
	var words []cmdWord
	i := 0
	for len(words) < n {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) || strings.IndexByte(";|&<>()\n", s[i]) >= 0 {
			return words
		}
		var w cmdWord
		var b strings.Builder
		w.tilde = strings.HasPrefix(s[i:], "~/")
		for i < len(s) && strings.IndexByte(" \t;|&<>()\n", s[i]) < 0 {
			switch c := s[i]; c {
			case '\'':
				end := strings.IndexByte(s[i+1:], '\'')
				if end < 0 {
					return words
				}
				part := s[i+1 : i+1+end]
				w.literal = w.literal || strings.ContainsAny(part, "$`")
				b.WriteString(part)
				i += end + 2
			case '"':
				j := i + 1
				for j < len(s) && s[j] != '"' {
					if s[j] == '\\' || s[j] == '`' {
						w.expansion = true
					}
					j++
				}
				if j == len(s) {
					return words
				}
				b.WriteString(s[i+1 : j])
				i = j + 1
			default:
				if strings.IndexByte("\\`*?[{", c) >= 0 && !(c == '{' && i > 0 && s[i-1] == '$') {
					w.expansion = true
				}
				b.WriteByte(c)
				i++
			}
		}
		w.text = b.String()
		words = append(words, w)
	}
	return words
}
