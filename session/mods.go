package session

import (
	"fmt"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/settings"
)

// modsUnheldLine is the advisory's line for n mods skillwire's hooks
// cannot hold against (issue 30). In user settings they run beneath every
// mod, which can skip, allow, strip or mute them. In managed settings a
// mod can still rewrite what a deny returns, unless the client keeps
// every person's mod from loading (allowManagedModsOnly).
func modsUnheldLine(n int, p settings.ModPolicy) string {
	if p.ManagedHooks {
		return fmt.Sprintf("- %d mod(s) loaded: a plugin whose hooks file lists modules runs in-process code; skillwire's hooks in managed settings run above it, but it can still rewrite what a deny returns (session.append), so skillwire cannot hold against it; only the client's allowManagedModsOnly does: run `sudo skillwire hook install --managed --managed-mods-only`", n)
	}
	return fmt.Sprintf("- %d mod(s) loaded: a plugin whose hooks file lists modules runs in-process code above skillwire's hooks in user settings, so skillwire cannot hold against it (a BLOCK can be skipped, this advisory muted); only hooks in managed settings run above it: run `sudo skillwire hook install --managed --managed-mods-only`", n)
}

// modsUnheldNotice is the person's words for the same.
func modsUnheldNotice(p settings.ModPolicy) string {
	if p.ManagedHooks {
		return "a mod is loaded and can rewrite what skillwire's managed hooks deny: run `sudo skillwire hook install --managed --managed-mods-only`"
	}
	return "a mod is loaded and skillwire's hooks in user settings cannot hold against it: run `sudo skillwire hook install --managed --managed-mods-only`"
}

// unheldMods counts the plugins observed with a hooks module, unless the
// mod policy holds against them; else 0.
func unheldMods(in Input) int {
	if in.ModPolicy.Held() {
		return 0
	}
	n := 0
	for _, o := range in.Obs {
		if o.Walk == nil || !settings.HoldsMods(o.Root.Kind) {
			continue
		}
		for _, c := range o.Walk.Candidates {
			if config.HasModules(c.Canonical) {
				n++
			}
		}
	}
	return n
}
