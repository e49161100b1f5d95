package session

import (
	"context"
	"sync"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude/steer"
	"github.com/skillwire/skillwire/walker"
)

// What a session start says when it cannot compare. The hook says the
// first when it fails or panics, the second when its deadline passes.
const (
	TextIncomplete   = "skillwire could not complete its observation of the skills, agents and commands this session; nothing was compared. Details: skillwire status"
	NoticeIncomplete = "skillwire: could not complete its observation; nothing was compared — run `skillwire status`"
	TextDeadline     = "skillwire did not finish observing the skills, agents and commands within its deadline this session; nothing was compared. Details: skillwire status"
	NoticeDeadline   = "skillwire: did not finish observing within its deadline; nothing was compared — run `skillwire status`"
)

// Hook is a session start as Claude Code's SessionStart hook runs it.
type Hook struct {
	// Projects are the folders whose settings may steer it (claude.HookProjects).
	Projects []string
	// World reads the world the session starts in. It is called only when
	// no project steers skillwire: a steered environment is not trusted.
	World func() (World, error)
}

// World is what a hook's session start observes, and what it says first.
type World struct {
	Start
	// Told are lines said before the advisory. They name folders or
	// plugins the session loads that skillwire cannot all observe.
	Told []string
	// Plugins are the inline plugins the start observed.
	Plugins StartPlugins
	// Hashes and Fronts are the caches of hashes and of SKILL.md forms
	// reused across starts (walker.Hashes, walker.FrontCache).
	Hashes, Fronts string
}

// StartPlugins are the plugins a start observed in --plugin-dir folders.
type StartPlugins struct {
	Given   bool     // folders were given with --plugin-dir
	Names   []string // plugin@inline
	Unknown bool     // one could not be named (claude.Inline.Unknown)
}

// RunHook is the whole session start of a hook, in its order. Steering
// comes first: a steered project gets one line and nothing is read. Then
// the world, the start's plugins kept, the caches loaded, and Run. Hashes
// are saved after the session was told, forms after the walk too (Run).
func RunHook(ctx context.Context, h Hook, out *Out) {
	if n := steer.SessionNotice(h.Projects...); n != "" {
		out.Deliver(n, n)
		return
	}
	out.Warn(steer.SessionWarning(h.Projects...))
	w, err := h.World()
	if err != nil {
		out.Deliver(TextIncomplete, NoticeIncomplete)
		return
	}
	for _, l := range w.Told {
		out.Warn(l)
	}
	if why := keepStartPlugins(w.Store, w.Session, w.Plugins, time.Now()); why != "" {
		out.Warn(startPluginsTold(why))
	}
	s := w.Start
	if w.Hashes != "" {
		// Idents: the served copies' stamps (served.StampWalked).
		s.Walk.Reuse, s.Walk.Idents = walker.LoadHashes(w.Hashes), true
		s.Walk.Fronts = walker.LoadFrontCache(w.Fronts) // nil without one
		defer s.Walk.Reuse.Save()
		defer s.Walk.Fronts.Save()
	}
	s.Warned = out.warned()
	Run(ctx, s, out.Deliver)
}

// keepStartPlugins keeps, for session, the plugins its start observed.
// The gate's later hooks compare what they observe with these. The result
// says, in fixed words, why they could not be kept. Then those hooks hold
// every plugin:name, since nothing kept matches.
func keepStartPlugins(o baseline.Options, session string, p StartPlugins, now time.Time) string {
	if !p.Given {
		return ""
	}
	if session == "" {
		return "the hook input names no session to keep them for"
	}
	err := baseline.Update(o, func(tx *baseline.Tx) error {
		_, err := tx.SessionPlugins().Keep(session, p.Names, p.Unknown, now)
		return err
	})
	if err != nil {
		return "skillwire's store could not keep them"
	}
	return ""
}

// startPluginsTold is what a session hears when its plugins were not kept.
func startPluginsTold(why string) string {
	return "skillwire could not keep the plugins this session loads from the folders given with --plugin-dir (" + why +
		"): the gate asks for every plugin's skill, agent and command, an installed plugin's included, since the client serves those it read at its start."
}

// Out lets exactly one advisory out: the first delivered, the start's or
// its deadline's. Lines warned before it are said first.
type Out struct {
	// Write writes the text for the model and the notice for the person.
	// It reports whether both were written whole.
	Write func(text, notice string) bool

	mu   sync.Mutex
	done bool
	warn string
}

// Deliver writes text and notice once, each after the warnings. A warning
// is the person's too, since it concerns what the gate denies.
func (o *Out) Deliver(text, notice string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return false
	}
	o.done = true
	return o.Write(steer.WithWarning(o.warn, text), steer.WithWarning(o.warn, notice))
}

// Warn adds a line said before whatever o delivers. The deadline's
// delivery may read it from another goroutine.
func (o *Out) Warn(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case line == "":
	case o.warn == "":
		o.warn = line
	default:
		o.warn += "\n" + line
	}
}

// warned reports whether a line is to be said first.
func (o *Out) warned() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.warn != ""
}
