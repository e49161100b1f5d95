package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/monitor"
	"github.com/skillwire/skillwire/session"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Use is one moment of use the gate is asked about.
type Use struct {
	// Kind is Skill for the Skill tool and a typed /name (both reach
	// skills and commands), Agent for the Agent tool.
	Kind Kind
	// Name is the name as Claude Code sent it: attacker text, never shown.
	Name string
	// Event names the hook in the journal ("PreToolUse", ...).
	Event string
	// Path, when set, names the candidate by a file inside it instead of
	// by name (a ConfigChange of a skill file); it is never cleaned.
	Path string
}

// Env is where the gate looks: the roots, the store (created when absent,
// as the hook does) and the walker's limits.
type Env struct {
	Roots  []claude.Root
	Store  baseline.Options
	Walker walker.Config
	Now    time.Time
}

// Result is the gate's answer for one use. Findings hold every candidate
// the name resolved to, judged; none means the name is not a candidate
// (a built-in agent, a typo, a name that fails the display gate).
type Result struct {
	Policy   Policy
	Answer   Answer
	Reason   string
	Findings []Finding
}

// located is a candidate found on disk, with where it is.
type located struct {
	root claude.Root
	name []byte
	cand Candidate
	cfg  walker.Config
}

// Check judges u on the bytes on disk now: the name is resolved among the
// candidates of env.Roots as Claude Code resolves it, each match is walked
// on the spot (or read from the daemon's cache when the daemon watched its
// root continuously), compared with the store, and answered under the
// store's policy, worst answer winning. Every ask and deny is journaled as
// a note on the candidate. An error means the gate could not judge: the
// caller answers with Fail, under FallbackPolicy when Result.Policy is 0.
func Check(ctx context.Context, u Use, env Env) (Result, error) {
	found := discover(env.Roots, env.Walker)
	cands := make([]Candidate, len(found))
	for i := range found {
		cands[i] = found[i].cand
	}
	var matched []located
	if u.Path != "" {
		matched = byPath(found, u.Path)
	} else {
		for _, i := range resolveIndex(u.Kind, u.Name, cands) {
			matched = append(matched, found[i])
		}
	}
	if len(matched) == 0 {
		return Result{}, nil
	}
	// Without a daemon every match is walked before the store is opened, so
	// the store's lock is never held during a walk.
	running := monitor.Running(env.Store.Dir)
	var obs []baseline.Observation
	var err error
	if !running {
		if obs, err = observe(ctx, matched, nil); err != nil {
			return Result{}, err
		}
	}
	st, err := baseline.Open(storeOptions(ctx, env.Store))
	if errors.Is(err, baseline.ErrBusy) {
		return Result{}, fmt.Errorf("%w: %w", ErrLocked, err)
	}
	if err != nil {
		return Result{}, fmt.Errorf("gate: opening the store: %w", err)
	}
	defer st.Close()
	var res Result
	err = st.View(func(tx *baseline.Tx) error {
		res = Result{}
		if running {
			cached, err := cachedRoots(tx, matched, env.Now)
			if err != nil {
				return err
			}
			if obs, err = observe(ctx, matched, cached); err != nil {
				return err
			}
		}
		p, err := tx.GatePolicy()
		if err != nil {
			return err
		}
		if res.Policy, err = ParsePolicy(p); err != nil {
			return err
		}
		sts, err := tx.Compare(obs)
		if err != nil {
			return err
		}
		for i := range sts {
			s := &sts[i]
			if s.Observed == nil {
				continue // a record of the same root that was not asked about
			}
			f, err := finding(tx, s, kindOfRoot(s.Root.Kind))
			if err != nil {
				return err
			}
			res.Findings = append(res.Findings, f)
		}
		res.Answer, res.Reason = Judge(res.Policy, res.Findings)
		return nil
	})
	if err == nil && res.Answer != None {
		// Only an ask or a deny writes: the common silent answer never
		// commits (nor syncs) a transaction.
		err = st.Update(func(tx *baseline.Tx) error { return journal(tx, u, res, env.Now) })
	}
	if err != nil {
		return Result{Policy: res.Policy}, fmt.Errorf("gate: judging: %w", err)
	}
	if ctx.Err() != nil {
		return Result{Policy: res.Policy}, fmt.Errorf("%w: %w", ErrDeadline, ctx.Err())
	}
	return res, nil
}

// cachedRoots are the daemon's cached observations of the matched roots it
// is trusted for, by session's rule (alive, watching everything, the root
// named in its heartbeat); the caller knows a daemon holds its role.
func cachedRoots(tx *baseline.Tx, matched []located, now time.Time) (map[string]*walker.Root, error) {
	hb, err := tx.Heartbeat()
	if err != nil {
		return nil, err
	}
	d := session.Daemon{Running: true, Heartbeat: hb}
	out := map[string]*walker.Root{}
	for _, m := range matched {
		p := m.root.Path
		if _, done := out[p]; done || !d.Trusts(p, now) {
			continue
		}
		if out[p], err = tx.CachedRoot(m.root.Spec()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FallbackPolicy is the policy to answer under when the store could not be
// read: its mirror beside the store, else the default.
func FallbackPolicy(dir string) Policy {
	if s, ok := baseline.GatePolicyMirror(dir); ok {
		if p, err := ParsePolicy(s); err == nil {
			return p
		}
	}
	return DefaultPolicy
}

// storeOptions bounds the lock wait by ctx's deadline and creates an absent
// store, as the session hook does: ids are minted with its secret.
func storeOptions(ctx context.Context, o baseline.Options) baseline.Options {
	o.Create, o.ReadOnly = true, false
	if o.LockTimeout <= 0 {
		o.LockTimeout = baseline.DefaultLockTimeout
	}
	if d, ok := ctx.Deadline(); ok {
		o.LockTimeout = max(time.Millisecond, min(o.LockTimeout, time.Until(d)))
	}
	return o
}

// discover lists the candidates of roots by name, without walking them.
func discover(roots []claude.Root, cfg walker.Config) []located {
	specs := make([]walker.RootSpec, len(roots))
	for i, r := range roots {
		specs[i] = r.Spec()
	}
	var out []located
	for i, w := range walker.Discover(specs, cfg) {
		r := roots[i]
		for _, c := range w.Candidates {
			folder := c.Name
			if c.Kind == walker.KindFile {
				folder = bytes.TrimSuffix(folder, []byte(".md"))
			}
			out = append(out, located{root: r, name: c.Name, cfg: cfg, cand: Candidate{
				Kind: kindOfRoot(r.Kind), Scope: scopeOfRoot(r.Scope), Folder: folder}})
		}
	}
	return out
}

// byPath is the candidate holding the file at path: root path, a slash,
// the candidate's name, then a slash or nothing. The path is compared as
// given, never cleaned, so a "..", "." or doubled slash matches nothing.
func byPath(found []located, path string) []located {
	for _, l := range found {
		dir := l.root.Path + "/"
		if !strings.HasPrefix(path, dir) {
			continue
		}
		rest := path[len(dir):]
		if rest == string(l.name) || strings.HasPrefix(rest, string(l.name)+"/") {
			return []located{l}
		}
	}
	return nil
}

func kindOfRoot(k claude.Kind) Kind {
	switch k {
	case claude.Agents:
		return Agent
	case claude.Commands:
		return Command
	}
	return Skill
}

func scopeOfRoot(s claude.Scope) Scope {
	if s == claude.Project {
		return Project
	}
	return User
}

// observe reads each matched candidate as it is now: from cached, the
// daemon's observations of the roots it watched continuously, else by
// walking that one candidate under the walker's proofs and limits.
func observe(ctx context.Context, matched []located, cached map[string]*walker.Root) ([]baseline.Observation, error) {
	var roots []claude.Root
	for _, m := range matched {
		if !hasRoot(roots, m.root.Path) {
			roots = append(roots, m.root)
		}
	}
	obs := make([]baseline.Observation, len(roots))
	for i, r := range roots {
		w := &walker.Root{Spec: r.Spec()}
		for _, m := range matched {
			if m.root.Path != r.Path {
				continue
			}
			c, ok := cachedCandidate(cached[r.Path], m.name)
			if !ok {
				c = walker.Observe(ctx, r.Path, m.name, m.cfg)
			}
			w.Candidates = append(w.Candidates, c)
		}
		obs[i] = baseline.Observation{Root: r, Walk: w}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDeadline, err)
	}
	return obs, nil
}

func hasRoot(roots []claude.Root, path string) bool {
	for _, r := range roots {
		if r.Path == path {
			return true
		}
	}
	return false
}

func cachedCandidate(r *walker.Root, name []byte) (walker.Candidate, bool) {
	if r == nil {
		return walker.Candidate{}, false
	}
	for _, c := range r.Candidates {
		if bytes.Equal(c.Name, name) {
			return c, true
		}
	}
	return walker.Candidate{}, false // not yet in the daemon's cache: walk it
}

// finding maps a standing to the gate's state, the worst that applies:
// an adverse verdict in force, then an anomaly or a partial read, then a
// review the content left (pending, halted), then never reviewed (new, or
// changed since skillwire told of it), then first-use or seen and
// unchanged, and last SAFE at exactly this digest.
func finding(tx *baseline.Tx, s *baseline.Standing, kind Kind) (Finding, error) {
	folder := s.Name
	if s.Observed.Kind == walker.KindFile {
		folder = bytes.TrimSuffix(folder, []byte(".md"))
	}
	f := Finding{Candidate: Candidate{ID: s.ID, Kind: kind, Scope: scopeOfRoot(s.Root.Scope), Folder: folder}, Digest: s.Digest()}
	obs := s.Observed
	rec := s.Prior
	if v := s.Verdict; v != nil && baseline.Adverse(v.Verdict) {
		f.State, f.Reviewed = Suspect, v.At
		if v.Verdict == baseline.Block {
			f.State = Blocked
		}
		return f, nil
	}
	if an := obs.Anomalies(); obs.Partial() || len(an) > 0 {
		f.State, f.Partial = Anomalous, obs.Partial()
		if len(an) > 0 {
			f.Anomaly = an[0].Reason
		}
		return f, nil
	}
	reviewed := rec != nil && (rec.Review != nil || rec.Verdict != nil && rec.Verdict.Verdict == baseline.Safe)
	switch st := s.Status(); {
	case st == baseline.StatusPending || st == baseline.StatusHalted:
		f.State = Pending
	case s.Verdict != nil: // SAFE, and in force only at exactly this digest
		f.State = Vetted
		f.Reviewed = s.Verdict.At
		return f, nil
	case s.State == baseline.New:
		f.State = New
		return f, nil
	case s.State == baseline.Unchanged:
		f.State = Familiar
		f.Change.On = rec.Observed
		return f, nil
	case reviewed:
		f.State = Pending
	default:
		f.State = New // changed since skillwire told of it, never reviewed
	}
	if rec.Review != nil {
		f.Reviewed = rec.Review.At
	}
	c, err := change(tx, s)
	f.Change = c
	return f, err
}

// change counts the files that differ from the version last delivered
// (the reviewed one when that is what was delivered). No audit log is
// read on this path, so the reason says nothing of announcements.
func change(tx *baseline.Tx, s *baseline.Standing) (Change, error) {
	rec := s.Prior
	c := Change{Unreconciled: true, On: rec.Observed}
	if rec.Review != nil && rec.Digest != nil && rec.Review.Digest != nil && *rec.Review.Digest == *rec.Digest {
		c.Since, c.On = SinceSafe, rec.Review.At
	}
	m, err := tx.Manifest(s.ID)
	if err != nil || m == nil {
		return c, err
	}
	for _, d := range snapshot.Diff(m, &s.Observed.Manifest) {
		switch d.Type {
		case snapshot.Added:
			c.Added++
		case snapshot.Removed:
			c.Removed++
		default:
			c.Modified++
		}
	}
	return c, nil
}

// journal notes every candidate that asked or denied, with its own reason.
func journal(tx *baseline.Tx, u Use, res Result, now time.Time) error {
	for _, f := range res.Findings {
		a := Decide(res.Policy, f.State)
		kind := baseline.NoteGateAsk
		switch a {
		case None:
			continue
		case Deny:
			kind = baseline.NoteGateDeny
		}
		n := baseline.Note{ID: f.Candidate.ID, Kind: kind, At: now.UTC(),
			Text: u.Event + " " + a.String() + " (policy " + res.Policy.String() + "): " + Reason(f)}
		if f.Digest != nil {
			d := *f.Digest
			n.Digest = &d
		}
		if err := tx.AppendNote(n); err != nil {
			return err
		}
	}
	return nil
}

// Outcome is what a hook does with one use: print Answer with Reason, or
// nothing; Note, when set, says on stderr why the gate could not judge.
type Outcome struct {
	Answer Answer
	Reason string
	Note   string
	Result Result
}

// Run is Check under a hard deadline. Past it, on any internal error (a
// panic included) or on a locked store, the answer is Fail's under the
// store's policy when it was read, else under FallbackPolicy: nothing
// under audit and balanced, deny under strict.
func Run(ctx context.Context, u Use, env Env, deadline time.Duration) Outcome {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	type checked struct {
		res Result
		err error
	}
	done := make(chan checked, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- checked{err: fmt.Errorf("gate: internal error: %v", r)}
			}
		}()
		res, err := Check(ctx, u, env)
		done <- checked{res, err}
	}()
	var c checked
	select {
	case c = <-done:
	case <-ctx.Done():
		c.err = fmt.Errorf("%w: %w", ErrDeadline, ctx.Err())
	}
	if c.err == nil {
		return Outcome{Answer: c.res.Answer, Reason: c.res.Reason, Result: c.res}
	}
	p := c.res.Policy
	if !p.Valid() {
		p = FallbackPolicy(env.Store.Dir)
	}
	f := Fail(p, c.err)
	o := Outcome{Answer: f.Answer, Note: f.Note, Result: c.res}
	if f.Answer != None {
		o.Reason = f.Note
	}
	return o
}
