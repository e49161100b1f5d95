package clientproc

import "strings"

// MaxSettings bounds the --settings files watched, as MaxAdded bounds the
// added folders.
const MaxSettings = 8

// SettingsArgs are the values of --settings in argv (argv[0] first), each
// as given. The option takes one value; a value given twice is watched
// twice, though the client reads the last: one too many, never one too few.
func SettingsArgs(argv []string) []string {
	var out []string
	for i := 1; i < len(argv); i++ {
		if v, ok := strings.CutPrefix(argv[i], "--settings="); ok {
			out = append(out, v)
		} else if argv[i] == "--settings" && i+1 < len(argv) {
			out = append(out, argv[i+1])
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

// settings resolves each --settings file of vals against launch, at most
// MaxSettings. A value it cannot resolve is a problem.
func (a *AddedDirs) settings(launch *launchDir, vals []string) {
	for _, v := range vals {
		if inlineSettings(v) {
			continue
		}
		if len(a.Settings) == MaxSettings {
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
			a.Settings = append(a.Settings, p)
		}
	}
}
