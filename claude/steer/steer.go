// Package steer tells when a project's settings set an env key that moves
// where skillwire or Claude Code look (the store, its lock, the
// configuration and project directories): Claude Code applies a project's
// settings env to the hooks it runs, so a cloned repository could point
// skillwire at an empty store. Settings that cannot be read safely set
// unknown keys, which is told too.
package steer

import (
	"os/user"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/settings"
)

// steers reports whether an env key moves where skillwire or Claude Code
// look: the store, its lock, the configuration and project directories.
// Claude Code applies a project's settings env to its own process, and so
// to the hooks it runs: a cloned repository could point the gate at an
// empty store, or make it fail to load and fall back to a weaker policy.
func steers(key string) bool {
	return strings.HasPrefix(key, "SKILLWIRE_") || key == "CLAUDE_CONFIG_DIR" || key == "CLAUDE_PROJECT_DIR" || key == "HOME"
}

// maxKeyShown bounds the key quoted in a reason.
const maxKeyShown = 64

// Steered is why the gate cannot trust its own environment in the given
// projects (CLAUDE_PROJECT_DIR and the hook's cwd: either may be the one
// whose settings Claude Code applied), or "" when no project's settings
// set an env key that steers skillwire. Settings that cannot be read
// safely set unknown keys, which is reason enough.
func Steered(projects ...string) string {
	key, unknown := steering(projects...)
	switch {
	case key != "":
		return "project settings set " + anomaly.QuoteBytes([]byte(key[:min(len(key), maxKeyShown)])) + " in env"
	case unknown:
		return unreadableSettings
	}
	return ""
}

const unreadableSettings = "project settings could not be read safely, so the env they set is unknown"

// steering is the first env key the projects' settings set that steers
// skillwire ("" for none), and whether some of their settings could not be
// read safely.
func steering(projects ...string) (key string, unknown bool) {
	var seen []string
	for _, p := range projects {
		if p == "" || slices.Contains(seen, p) || p == passwdHome() {
			continue
		}
		seen = append(seen, p)
		keys, err := settings.ProjectEnvKeys(p)
		unknown = unknown || err != nil
		for _, k := range keys {
			if steers(k) {
				return k, unknown
			}
		}
	}
	return "", unknown
}

// SessionNotice is the one line a session start says instead of its
// advisory when projects' settings set an env key that steers skillwire,
// "" when they do not: nothing was compared, since the store it would
// read may be the project's.
func SessionNotice(projects ...string) string {
	key, _ := steering(projects...)
	if key == "" {
		return ""
	}
	return "skillwire: " + Steered(projects...) + ", which steers where skillwire looks; nothing was compared, and the gate denies every skill, agent and command use until the key is removed"
}

// SessionWarning is the one line a session start says before its advisory
// when projects' settings could not be read safely (a link, a FIFO, too
// large, unparsable) and none that could sets a steering key: the
// comparison goes on, since what the unread file sets is only unknown,
// and the gate denies meanwhile. "" otherwise.
func SessionWarning(projects ...string) string {
	if key, unknown := steering(projects...); key != "" || !unknown {
		return ""
	}
	return "skillwire: " + unreadableSettings + "; the gate denies every skill, agent and command use until they can be read"
}

// WithWarning is text said after the warning line, if any.
func WithWarning(warning, text string) string {
	switch {
	case warning == "":
		return text
	case text == "":
		return warning
	}
	return warning + "\n" + text
}

// passwdHome is the person's home directory from the user database, never
// from $HOME (which a project's env can set): a session started there reads
// ~/.claude/settings.json, the person's own settings, as its project's.
func passwdHome() string {
	u, err := user.Current()
	if err != nil || !strings.HasPrefix(u.HomeDir, "/") {
		return ""
	}
	return u.HomeDir
}
