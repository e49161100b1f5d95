package session

import (
	"slices"
	"time"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// comparison is one session start's comparison with the store, once its
// roots are observed.
type comparison struct {
	Store baseline.Options
	Obs   []baseline.Observation
	// Audit reads the audit logs, and says in fixed words why it could
	// not. It is called only when something is to be reconciled. So a
	// quiet session start costs what it did before reconciliation.
	Audit func() ([]reconcile.Source, string)
	// Content returns kept bytes by BLAKE3; nil when none are kept.
	Content func(snapshot.Hash) ([]byte, bool)
	Limits  walker.Limits
	Now     time.Time
	// Project, when set, is registered once, for the daemon to watch.
	Project string
	// Places, when its Config is set, locate the other registered
	// projects. Their settings are read for disableAllHooks (Input.HooksOff).
	Places claude.Places
	// Log receives one line per auto-accept and halt.
	Log zerolog.Logger
}

// prepare compares the observation with the store. It reconciles what
// changed with the audit logs and runs bounded auto-accept. It records the
// auto-accept decisions: they are decisions, not tells, and stand whether
// or not the advisory is delivered. The store is never held while logs are
// read or files hashed. The Input it returns is ready for build.
func (s *comparison) prepare() (Input, error) {
	in := Input{Obs: s.Obs}
	st, err := baseline.Open(s.Store)
	if err != nil {
		return in, err
	}
	var subjects reconcile.Subjects
	var trusted []string
	registered := false
	err = st.View(func(tx *baseline.Tx) error {
		in.Bootstrap = !tx.FirstRunDone()
		var err error
		if in.Standings, err = tx.Compare(s.Obs); err != nil {
			return err
		}
		if !in.Bootstrap {
			if in.Replaces, err = DetectVersions(tx, in.Standings); err != nil {
				return err
			}
			if subjects, err = readSubjects(tx, in.Standings, in.Replaces); err != nil {
				return err
			}
			if trusted, err = tx.Trust().List(); err != nil {
				return err
			}
			if in.Renames, err = DetectRenames(tx, in.Standings, s.Content); err != nil {
				return err
			}
		}
		if in.Events, err = tx.Events().List(); err != nil {
			return err
		}
		if in.Instructions, err = tx.Instructions().List(); err != nil {
			return err
		}
		projects, err := tx.Projects().List()
		registered = s.Project == "" || slices.Contains(projects, s.Project)
		in.HooksOff = settings.HooksOffElsewhere(s.Places, s.Project, projects)
		in.Incomplete = settings.IncompleteIn(s.Places)
		in.ModPolicy = settings.ModPolicyOf(s.Places)
		return err
	})
	if err == nil && !registered {
		err = st.Update(func(tx *baseline.Tx) error { return tx.Projects().Register(s.Project, s.Now) })
	}
	// The logs are read and files hashed without the store. Its lock is
	// released meanwhile, and taken again only to record decisions.
	st.Close()
	if err != nil || len(subjects.Candidates) == 0 {
		return in, err
	}
	var src []reconcile.Source
	src, in.AuditProblem = s.Audit()
	subjects.Content = s.Content
	in.Reconciled = subjects.Reconcile(src, s.Now, s.Limits)
	in.Findings = contentFindings(subjects, s.Content)
	outs := DecideAuto(in.Standings, in.Reconciled, trusted, s.Content)
	if len(outs) == 0 {
		return in, nil
	}
	if st, err = baseline.Open(s.Store); err != nil {
		return in, err
	}
	defer st.Close()
	err = st.Update(func(tx *baseline.Tx) error {
		var err error
		if in.Auto, err = ApplyAuto(tx, outs, s.Now); err != nil {
			return err
		}
		in.Standings, err = tx.Compare(s.Obs)
		return err
	})
	for i := range in.Auto {
		o := &in.Auto[i]
		s.Log.Info().Str("id", o.St.ID).Bool("accepted", o.Decision.Accept).Msg(o.Text())
	}
	return in, err
}
