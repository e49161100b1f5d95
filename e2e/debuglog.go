package e2e

import (
	"regexp"
	"strconv"
	"strings"
)

// HookRun is one command hook the client ran, as its debug log says.
type HookRun struct {
	Event   string // "SessionStart", "PreToolUse", …
	Matcher string // what followed the event ("startup", "Skill"), if anything
	Command string
	Status  int
}

// Most events log "Hooks: Event:matcher [cmd] finished with status N".
// InstructionsLoaded and ConfigChange log "Event:matcher [cmd] completed with
// status N". A plugin's hook adds "(plugin name@marketplace)" after the
// command.
var hookRunLine = regexp.MustCompile(`(?m)\[DEBUG\] (?:Hooks: )?([A-Za-z]+)(?::(\S*))? \[(.*?)\](?: \(plugin \S+\))? (?:finished|completed) with status (-?\d+)`)

// HookRuns are the command hooks the debug log says ran.
func HookRuns(debug string) []HookRun {
	var out []HookRun
	for _, m := range hookRunLine.FindAllStringSubmatch(debug, -1) {
		st, _ := strconv.Atoi(m[4])
		out = append(out, HookRun{Event: m[1], Matcher: m[2], Command: m[3], Status: st})
	}
	return out
}

// Ran reports whether a hook running skillwire's subcommand sub ran for event.
func Ran(debug, event, sub string) bool { return RanFor(debug, event, "", sub) }

// RanFor is Ran for one matcher (InstructionsLoaded's is the load reason);
// "" is any.
func RanFor(debug, event, matcher, sub string) bool {
	for _, r := range HookRuns(debug) {
		if r.Event == event && (matcher == "" || r.Matcher == matcher) && strings.Contains(r.Command, "skillwire hook "+sub) {
			return true
		}
	}
	return false
}

// noise are debug lines that look like trouble and are not skillwire's. Each
// is named and justified.
var noise = []struct{ re *regexp.Regexp }{
	// A fresh config directory has no .claude.json yet. The client creates it
	// after this first, failed locked save.
	{regexp.MustCompile(`Failed to save config with lock: Error: ENOENT`)},
	// Telemetry is off in the world; the client says so for each event.
	{regexp.MustCompile(`\[3P telemetry\]`)},
	// The client says this of every hook output that is not JSON, the empty
	// output too. Empty output is how the gate says "nothing to add".
	{regexp.MustCompile(`Hook output does not start with \{, treating as plain text`)},
	// The world turns non-essential traffic off. After installing a declared
	// marketplace headless, the client may put off recording its enabled
	// plugins. It says so.
	{regexp.MustCompile(`installPluginsForHeadless: not recording enabled plugins: CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is set`)},
}

var trouble = regexp.MustCompile(`(?i)\[ERROR\]|\[WARN\]|hook.*(invalid|validation|failed to parse|not valid|schema)|settings.*(invalid|validation error)`)

// Trouble are the debug lines reporting an error, a warning, or hook output
// the client could not take. The named noise is left out.
func Trouble(debug string) []string {
	var out []string
lines:
	for _, l := range strings.Split(debug, "\n") {
		if !trouble.MatchString(l) {
			continue
		}
		for _, n := range noise {
			if n.re.MatchString(l) {
				continue lines
			}
		}
		out = append(out, l)
	}
	return out
}
