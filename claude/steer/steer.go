// Package steer tells when a project's settings set an env key that moves
// where skillwire or Claude Code look. Such keys name the store, its lock,
// and the configuration and project directories. Claude Code applies a
// project's settings env to the hooks it runs. So a cloned repository
// could point skillwire at an empty store. Settings that cannot be read
// safely set unknown keys, and steer tells that too.
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
// Claude Code applies a project's settings env to its own process. So the
// hooks it runs get that env too. A cloned repository could point the gate
// at an empty store. Or it could make the gate fail to load and fall back
// to a weaker policy.
func steers(key string) bool {
	return strings.HasPrefix(key, "SKILLWIRE_") || key == "CLAUDE_CONFIG_DIR" || key == "CLAUDE_PROJECT_DIR" || key == "HOME"
}

// maxKeyShown bounds the key quoted in a reason.
const maxKeyShown = 64

// Steered is why the gate cannot trust its own environment in the given
// projects. Pass CLAUDE_PROJECT_DIR and the hook's cwd. Claude Code may
// have applied the settings of either. Steered is "" when no project's
// settings set an env key that steers skillwire. Settings that cannot be
// read safely set unknown keys, which is reason enough.
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

// steering is the first steering env key the projects' settings set ("" for
// none). It also reports whether some of their settings could not be read
// safely.
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
// advisory, or "". It is said when projects' settings set a steering env
// key. Then nothing was compared, since the store read may be the
// project's.
func SessionNotice(projects ...string) string {
	key, _ := steering(projects...)
	if key == "" {
		return ""
	}
	return "skillwire: " + Steered(projects...) + ", which steers where skillwire looks; nothing was compared, and the gate denies every skill, agent and command use until the key is removed"
}

// SessionWarning is the one line a session start says before its advisory,
// or "". It is said when some project settings could not be read safely
// and none that could sets a steering key. Unsafe means a link, a FIFO,
// too large or unparsable. The comparison goes on, since what the unread
// file sets is only unknown. The gate denies meanwhile.
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

// passwdHome is the person's home directory from the user database. It
// never reads $HOME, which a project's env can set. A session started at
// home reads ~/.claude/settings.json as its project's. Those are the
// person's own settings, not a project's.
func passwdHome() string {
	u, err := user.Current()
	if err != nil || !strings.HasPrefix(u.HomeDir, "/") {
		return ""
	}
	return u.HomeDir
}
