package session

import (
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
)

// modsUnheld is the advisory's line for mods skillwire's hooks cannot hold
// against (issue 30): installed in user settings, they run beneath every
// mod, which can skip, allow, strip or mute them.
const modsUnheld = "- %d mod(s) loaded: a plugin whose hooks file lists modules runs in-process code above skillwire's hooks in user settings, so skillwire cannot hold against it (a BLOCK can be skipped, this advisory muted); only hooks in managed settings run above it: run `sudo skillwire hook install --managed`"

// unheldMods counts the plugins observed with a hooks module, when
// skillwire's hooks are not in managed settings; else 0.
func unheldMods(in Input) int {
	if in.ManagedHooks {
		return 0
	}
	n := 0
	for _, o := range in.Obs {
		if o.Walk == nil {
			continue
		}
		for _, c := range o.Walk.Candidates {
			if holdsPlugins(o.Root.Kind) && config.HasModules(c.Canonical) {
				n++
			}
		}
	}
	return n
}

func holdsPlugins(k claude.Kind) bool {
	return k == claude.Plugins || k == claude.PluginSources || k == claude.Skills
}
