package review

import (
	"slices"
	"time"

	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/pluginrecord"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/walker"
)

// StatusConfig is what a status report reads.
type StatusConfig struct {
	// Store is read only; it is never created.
	Store baseline.Options
	// Roots are the roots watched now. A record's changes are reconciled
	// against its root's audit log.
	Roots []claude.Root
	// Places are where the settings and the install record are read.
	Places claude.Places
	// Audit reads the audit logs, and says in fixed words why it could not.
	// It is called only when something is to be reconciled.
	Audit func() ([]reconcile.Source, string)
	// Limits bound the files hashed to reconcile.
	Limits walker.Limits
	// Gate is how many of the gate's recent asks and denies are read.
	Gate int
	// Observe, when set, observes the roots that hold plugins now, for
	// their mods: a mute mod keeps every session start from telling one.
	Observe func() []baseline.Observation
	// ModsUnseen, in fixed words, is why the plugin folders of the
	// sessions running now could not all be read (--plugin-dir): a mod
	// may be there untold. "" when they were read.
	ModsUnseen string
}

// Status is the store's report, with what stops skillwire's hooks.
type Status struct {
	// Health is the store's. Err is why it could not be read; a store
	// read only in part still lists what was read.
	Health baseline.Health
	Err    error
	baseline.Report
	// Changes are each record's changes since its review, reconciled.
	Changes map[string]*reconcile.Reconciliation
	// Gate are the gate's recent asks and denies, newest first.
	Gate []baseline.Note
	// DaemonRunning: a daemon holds its role. Heartbeat is its last one.
	DaemonRunning bool
	Heartbeat     *cache.Heartbeat
	// HooksOff are the settings files under which no hook of skillwire
	// runs. HooksIncomplete is skillwire's install lacking some hooks.
	HooksOff        []settings.HooksOff
	HooksIncomplete *settings.Incomplete
	// HooksInstalled: skillwire's SessionStart hook is in a settings file
	// the client reads. Without it no session is told anything.
	HooksInstalled bool
	// InstallRecord is where a plugin's folder disagrees with the
	// client's own record of what it installed.
	InstallRecord []config.Fact
	// Mods are the plugins on disk now whose hooks file lists modules.
	// ModsUnknown: a root or plugin that holds them was not observed
	// whole, so a mod may be there untold. ModPolicy is what holds
	// against them.
	Mods        []Mod
	ModsUnknown bool
	ModsUnseen  string // StatusConfig.ModsUnseen; ModsUnknown then
	ModPolicy   settings.ModPolicy
	// Sideload is what holds against what a session started later loads
	// from its command line, which nothing can see before it starts.
	Sideload settings.Sideload
}

// Mod is one plugin whose hooks file lists modules. ID is "" without a
// store.
type Mod struct {
	ID    string
	Root  claude.Root
	Name  []byte
	Facts []config.Fact
}

// ModsOf are the mods of obs, and whether some could not be known.
func ModsOf(obs []baseline.Observation) (mods []Mod, unknown bool) {
	for _, o := range obs {
		if o.Walk == nil || !settings.HoldsMods(o.Root.Kind) {
			continue
		}
		unknown = unknown || len(o.Walk.Anomalies) > 0
		for i := range o.Walk.Candidates {
			c := &o.Walk.Candidates[i]
			if fs := config.ModuleFacts(c.Canonical); len(fs) > 0 {
				mods = append(mods, Mod{Root: o.Root, Name: c.Name, Facts: fs})
			} else if c.Partial() {
				unknown = true
			}
		}
	}
	return mods, unknown
}

// Report reads the status. The settings are read first, then the store,
// in one read. The audit logs are read after the store is closed.
func Report(c StatusConfig) Status {
	s := Status{HooksOff: settings.HooksOffIn(c.Places), InstallRecord: pluginrecord.Facts(c.Places),
		HooksIncomplete: settings.IncompleteIn(c.Places), HooksInstalled: settings.Installed(c.Places), ModPolicy: settings.ModPolicyOf(c.Places),
		Sideload: settings.SideloadOf(c.Places)}
	if c.Observe != nil {
		s.Mods, s.ModsUnknown = ModsOf(c.Observe())
	}
	s.ModsUnseen = c.ModsUnseen
	s.ModsUnknown = s.ModsUnknown || s.ModsUnseen != ""
	var subjects reconcile.Subjects
	s.Err = baseline.View(c.Store, func(tx *baseline.Tx) error {
		var err error
		if s.Report, err = tx.Report(); err != nil {
			return err
		}
		all := slices.Concat(s.Pending, s.Unvetted, s.Adverse, s.Safe)
		if subjects, err = reconcile.StoredSubjects(tx, all, c.Roots); err != nil {
			return err
		}
		if s.Gate, err = tx.Notes().Recent(c.Gate, baseline.NoteGateAsk, baseline.NoteGateDeny); err != nil {
			return err
		}
		for i := range s.Mods {
			s.Mods[i].ID = tx.ID(s.Mods[i].Root.Path, s.Mods[i].Name)
		}
		s.DaemonRunning = cache.DaemonRunning(c.Store.Dir)
		s.Heartbeat, err = tx.Cache().Heartbeat()
		return err
	})
	s.Health = baseline.HealthOf(s.Err)
	if len(subjects.Candidates) > 0 {
		src, _ := c.Audit()
		s.Changes = subjects.Reconcile(src, time.Now(), c.Limits)
	}
	return s
}

// Finding reports whether status is a finding: an adverse verdict in
// force, a candidate pending, hooks that do not all run, or a mod that
// nothing holds against (or may be, unseen). A store that cannot be read
// is the caller's failure, not a finding.
func (s *Status) Finding() bool {
	return len(s.Adverse) > 0 || len(s.Pending) > 0 || len(s.HooksOff) > 0 || len(s.InstallRecord) > 0 || s.HooksIncomplete != nil ||
		s.ModsUnheld()
}

// ModsUnheld reports a mod present, or possibly present, that the mod
// policy does not hold against.
func (s *Status) ModsUnheld() bool {
	return (len(s.Mods) > 0 || s.ModsUnknown) && !s.ModPolicy.Held()
}

// Anomalous are the records whose last delivered observation holds an
// anomaly, each once: pending first, then adverse, unvetted and safe.
func (s *Status) Anomalous() []*baseline.Record {
	var out []*baseline.Record
	for _, l := range [][]*baseline.Record{s.Pending, s.Adverse, s.Unvetted, s.Safe} {
		for _, r := range l {
			if !r.Removed && len(r.Anomalies) > 0 && !slices.ContainsFunc(out, func(o *baseline.Record) bool { return o.ID == r.ID }) {
				out = append(out, r)
			}
		}
	}
	return out
}
