package monitor

import (
	"context"
	"os/exec"
	"slices"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/events"
)

// noteHooksOff logs each settings file that newly stops skillwire's hooks
// (settings.HooksOffIn), and tells the desktop. Under such a file the
// hooks cannot tell it themselves. It logs each that no longer does, too.
func (d *daemon) noteHooksOff() {
	places := claude.Places{Config: d.cfg.CfgDir, Managed: d.cfg.ManagedDir}
	var projects []string
	for _, r := range d.roots {
		if r.Scope == claude.Project && r.Project != "" && !slices.Contains(projects, r.Project) {
			projects = append(projects, r.Project)
		}
	}
	now := map[string]settings.HooksOff{}
	for _, h := range settings.HooksOffIn(places) {
		now[h.Path] = h
	}
	for _, p := range projects {
		places.Project = p
		for _, h := range settings.HooksOffIn(places) {
			now[h.Path] = h
		}
	}
	for path, h := range now {
		if d.hooksOff[path] {
			continue
		}
		file := anomaly.QuoteBytes([]byte(path))
		d.log.Warn().Str("file", file).Str("scope", string(h.Scope)).Str("advice", h.Advice()).
			Msg("hooks off: this settings file sets disableAllHooks, so Claude Code runs none of skillwire's hooks there (no advisory, no gate)")
		if d.cfg.Notify != nil {
			d.cfg.Notify("skillwire: hooks are off", file+" sets disableAllHooks: Claude Code runs none of skillwire's hooks there; "+h.Advice())
		}
		ev := events.HooksDisabled(events.Origin{Via: "daemon"}, events.Candidate{Kind: claude.KindSettings, Scope: string(h.Scope), Path: path}, "disableAllHooks")
		if err := events.Append(d.ctx, d.cfg.Store.Dir, ev); err != nil {
			d.log.Warn().Err(err).Msg("the fleet event of the hooks switched off was not written")
		}
	}
	for path := range d.hooksOff {
		if _, ok := now[path]; !ok {
			d.log.Info().Str("file", anomaly.QuoteBytes([]byte(path))).Msg("hooks on again: this settings file no longer sets disableAllHooks")
		}
	}
	d.hooksOff = map[string]bool{}
	for path := range now {
		d.hooksOff[path] = true
	}
}

// DesktopNotifier is a Config.Notify that runs notify-send. It is nil when
// notify-send is not on PATH. A notification is a courtesy, never
// required. One that fails is dropped: a user service may have no bus.
func DesktopNotifier() func(title, body string) {
	bin, err := exec.LookPath("notify-send")
	if err != nil {
		return nil
	}
	return func(title, body string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmd := exec.CommandContext(ctx, bin, "--app-name=skillwire", "--", title, body)
		if cmd.Start() != nil {
			cancel()
			return
		}
		go func() { cmd.Wait(); cancel() }()
	}
}
