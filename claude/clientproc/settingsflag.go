package clientproc

import (
	"slices"
	"strings"
)

// MaxSettings bounds the --settings files watched, as MaxAdded bounds the
// added folders.
const MaxSettings = 8

// SettingsArgs are the values of --settings in argv (argv[0] first), each
// as given. The option takes one value; a value given twice is watched
// twice, though the client reads the last: one too many, never one too few.
func SettingsArgs(argv []string) []string { return oneValueArgs(argv, "--settings") }

// PromptFileArgs are the values of the options that read a system prompt
// from a file (Claude Code 2.1.332): --system-prompt-file,
// --append-system-prompt-file, --append-subagent-system-prompt-file.
// Each takes one value, a file's path.
func PromptFileArgs(argv []string) []string {
	return oneValueArgs(argv, "--system-prompt-file", "--append-system-prompt-file", "--append-subagent-system-prompt-file")
}

// oneValueArgs are the values of argv's options of one value named flags,
// given as --flag v or --flag=v, up to "--".
func oneValueArgs(argv []string, flags ...string) []string {
	var out []string
	for i := 1; i < len(argv) && argv[i] != "--"; i++ {
		name, v, eq := strings.Cut(argv[i], "=")
		switch {
		case eq && slices.Contains(flags, name):
			out = append(out, v)
		case !eq && slices.Contains(flags, argv[i]) && i+1 < len(argv):
			out = append(out, argv[i+1])
			i++
		}
	}
	return out
}

// MCPConfigArgs are the values of --mcp-config in argv, each as given. The
// option takes one value or more (Claude Code 2.1.332, commander's
// variadic <configs...>): --mcp-config=v is one; --mcp-config takes the
// next argument whatever it is, then every one after that does not start
// with "-" (a prompt given after it is read as a configuration too), up
// to "--".
func MCPConfigArgs(argv []string) []string {
	option := func(a string) bool { return len(a) > 1 && a[0] == '-' } // "--" too
	var out []string
	for i := 1; i < len(argv) && argv[i] != "--"; i++ {
		if v, ok := strings.CutPrefix(argv[i], "--mcp-config="); ok {
			out = append(out, v)
			continue
		}
		if argv[i] != "--mcp-config" || i+1 == len(argv) {
			continue
		}
		i++
		out = append(out, argv[i]) // the first value, whatever it is
		for i+1 < len(argv) && !option(argv[i+1]) {
			i++
			out = append(out, argv[i])
		}
	}
	return out
}

// inlineSettings reports whether the client reads v as JSON, not as a
// file's path: trimmed, it starts with { and ends with } (Claude Code
// 2.1.332). The JSON is the command line's own, and cannot change.
func inlineSettings(v string) bool {
	t := strings.TrimSpace(v)
	return strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}")
}

// files resolves each file of vals (the values of --settings or
// --mcp-config) against launch into *to, at most MaxSettings. A value it
// cannot resolve is a problem; a JSON value names no file.
func (a *AddedDirs) files(launch *launchDir, vals []string, to *[]string, json bool) {
	for _, v := range vals {
		if json && inlineSettings(v) {
			continue
		}
		if len(*to) == MaxSettings {
			a.problem(problemTooMany)
			return
		}
		p, problem := launch.resolve(v)
		switch {
		case problem != "":
			a.problem(problem)
		case p == "/":
			a.problem(problemDotted)
		default:
			*to = append(*to, p)
		}
	}
}
