package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/internal/shellword"
)

// Command is one thing a configuration makes Claude Code run or call
// without asking: a hook handler, the status line, a helper.
type Command struct {
	Source  string // "hooks", "statusLine", "fileSuggestion", "apiKeyHelper", …
	Event   string // hooks: the event name as written
	Matcher string // hooks: the matcher as written; "" when none
	Type    string // hooks: the handler type ("command", "http", "prompt", …)
	Command string // the command line; for an http hook its URL, for a prompt hook its prompt
}

// helperKeys are the settings keys whose string value is a command run by
// /bin/sh. They are credentials, telemetry headers and the proxy's
// credentials. gcpAuthRefresh ran a project's value under a Vertex setup.
var helperKeys = []string{"apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "gcpAuthRefresh", "otelHeadersHelper", "proxyAuthHelper"}

// objectHelperKeys are the settings keys whose object's "command" is run.
// They are the status lines, the subagents' too, and the file picker.
var objectHelperKeys = []string{"statusLine", "subagentStatusLine", "fileSuggestion"}

// marketplaceKeys hold marketplaces by name. A url source may name a
// headersHelper command run to fetch it. Claude Code 2.1.328 reads it at
// source.headersHelper. additionalMarketplaces is Claude Code's alias of
// extraKnownMarketplaces.
var marketplaceKeys = []string{"extraKnownMarketplaces", "additionalMarketplaces"}

// HeadersHelper is the Command.Source of a marketplace's headersHelper.
// Its Matcher is the marketplace's name.
const HeadersHelper = "headersHelper"

// decodeCanonical reads a canonical form back. A form that does not decode
// reads as empty, so a damaged old form makes everything new, never less.
func decodeCanonical(canonical []byte) map[string]any {
	var m map[string]any
	if err := decodeJSON(canonical, &m); err != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// decodeJSON is json.Unmarshal keeping numbers as written (json.Number).
// A number past float64 fails json.Unmarshal into any. JSON.parse reads
// 1e400 as Infinity. A form read as empty for it would hide every key
// beside it. A hook added next to "zz": 1e400 was once told as no fact.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("config: data after the JSON value")
	}
	return nil
}

// SettingsCommands lists every command of a settings subset, by its
// Canonical form. First come every hook handler of every event and
// matcher. Then come the status line, the file suggestion command and the
// helpers.
func SettingsCommands(canonical []byte) []Command {
	doc := decodeCanonical(canonical)
	cmds := hookCommands(doc["hooks"])
	for _, k := range objectHelperKeys {
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
	for _, k := range marketplaceKeys {
		ms, _ := doc[k].(map[string]any)
		for _, name := range cfgKeys(ms) {
			if c, ok := marketplaceHeadersHelper(ms[name]); ok {
				cmds = append(cmds, Command{Source: HeadersHelper, Matcher: name, Command: c})
			}
		}
	}
	return cmds
}

// marketplaceHeadersHelper is the command a marketplace entry runs for its
// headers. That is its source's headersHelper, where the client reads it.
// Else it is one beside the source. The client does not read that one,
// but a later version might, so it is never passed over.
func marketplaceHeadersHelper(entry any) (string, bool) {
	m, _ := entry.(map[string]any)
	src, _ := m["source"].(map[string]any)
	if c, ok := src["headersHelper"].(string); ok {
		return c, true
	}
	c, ok := m["headersHelper"].(string)
	return c, ok
}

// hookCommands walks a hooks value of settings, a plugin's hooks.json or
// frontmatter: event → [ {matcher, hooks: [handler]} ]. A single object
// where a list belongs is read as a one-element list. So a shape Claude
// Code might accept is never silently passed over.
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
				c.Command += execArgs(handler["args"])
				cmds = append(cmds, c)
			}
		}
	}
	return cmds
}

// execArgs is an exec-form hook's args as shell words after its command.
// Under `command: "/bin/sh"` the args are the payload. So a change of args
// is a changed hook, and `sh ./x.sh` binds the script as a shell line
// does. An arg that is not a string is its JSON, quoted: never dropped.
func execArgs(v any) string {
	args, ok := v.([]any)
	if !ok {
		if v != nil {
			return " " + shellword.Quote(cfgJSON(v))
		}
		return ""
	}
	var b strings.Builder
	for _, a := range args {
		s, ok := a.(string)
		if !ok {
			s = cfgJSON(a)
		}
		b.WriteString(" " + shellword.Quote(s))
	}
	return b.String()
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
