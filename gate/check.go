package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/builtin"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/claude/workflow"
	"github.com/skillwire/skillwire/gate/adverse"
	"github.com/skillwire/skillwire/gate/match"
	"github.com/skillwire/skillwire/gate/served"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Use is one moment of use the gate is asked about.
type Use struct {
	// Kind is Skill for the Skill tool and a typed /name. Both reach
	// skills and commands. It is Agent for the Agent tool.
	Kind resolve.Kind
	// Name is the name as Claude Code sent it: attacker text, never shown.
	Name string
	// Event names the hook in the journal ("PreToolUse", ...).
	Event string
	// Path, when set, names the candidate by a file inside it, not by
	// name: a ConfigChange of a skill file. It is never cleaned.
	Path string
	// ToolUseID and Session name the tool call an ask is about. Its
	// PostToolUse then records the person's allow (AllowedAtUse). Prompt
	// is Claude Code's prompt.id, carried into the fleet's events.
	ToolUseID, Session, Prompt string
	// DenyOnly: only a deny is answered and journaled. Anything milder is
	// left unsaid. A check that could not be made is answered as run
	// answers any, never with silence. It is for the agent a call runs as,
	// judged beside the call.
	DenyOnly bool
	// Script is a Workflow call's own script: attacker text, shown only
	// quoted. It runs when no name or Path names a file.
	Script string
}

// Env is where the gate looks: the roots, the store and the walker's
// limits. The store is created when absent, as the hook does.
type Env struct {
	Roots  []claude.Root
	Store  baseline.Options
	Walker walker.Config
	Now    time.Time
	// AddedUnknown: the folders the session added could not all be
	// observed (clientproc.AddedDirs.Problem). So a name of no observed
	// candidate may be served from one of them, a built-in's included.
	AddedUnknown bool
	// PluginsUnknown: the plugins the session loads from folders
	// (--plugin-dir) could not all be observed or named. So one of them
	// may serve any plugin:name. The client prefers it to an installed
	// plugin of its name. Such a name is never answered from an observed
	// plugin's verdict alone.
	PluginsUnknown bool
	// InlineGiven: folders are given with --plugin-dir. Inline: the names
	// (plugin@inline) of the plugins observed in them now.
	// withStartPlugins compares them with those the session's start kept.
	InlineGiven bool
	Inline      []string
	// AddedInstructions reports whether the client reads the instruction
	// files of the folders the session added. It is clientproc's
	// AddedInstructions, asked only once the session added one. nil: it
	// does not. Home anchors their ~/ imports (claude.Places.Home).
	AddedInstructions func() bool
	Home              string
	// Nested are the folders below the project holding .claude/skills
	// (claude.Places.Nested). The client reads those skills only when a
	// file below is touched, and serves that copy (served.go).
	Nested []string
}

// Result is the gate's answer for one use. Findings hold every candidate
// the name resolved to, judged. None means the name is not a candidate: a
// built-in agent, a typo, a name that fails the display gate.
type Result struct {
	Policy   Policy
	Answer   Answer
	Reason   string
	Findings []Finding
}

// Check judges u on the bytes on disk now. The name is resolved among the
// candidates of env.Roots as the client resolves it. Each match is walked
// on the spot and compared with the store. The store's policy answers,
// and the worst answer wins. Every ask and deny is journaled as a note on
// the candidate. An error means the gate could not judge: the caller
// answers with fail, as run does.
func Check(ctx context.Context, u Use, env Env) (Result, error) {
	j := &judging{u: u, env: env}
	j.found, j.blind = match.Discover(env.Roots, env.Walker)
	if res, ok, err := j.blockedByFolder(ctx); ok || err != nil {
		return res, err
	}
	j.reach(ctx)
	if len(j.matched) == 0 && len(j.unseen) == 0 && len(j.typed) == 0 {
		return unknown(ctx, u, env)
	}
	if mayBeTwin(u, env) {
		j.unseen = append(j.unseen, twinFinding(u))
	}
	if err := j.read(ctx); err != nil {
		return Result{}, err
	}
	res, err := j.answer(ctx)
	if err != nil {
		return Result{Policy: res.Policy}, err
	}
	if len(j.rest) > 0 && ctx.Err() != nil {
		// A walk cut short by the deadline is no judgement. Verdicts read
		// by id are, whenever they were read.
		return Result{Policy: res.Policy}, fmt.Errorf("%w: %w", ErrDeadline, ctx.Err())
	}
	return res, nil
}

// judging is one Check under way: what its use reaches, then what was
// read of it.
type judging struct {
	u     Use
	env   Env
	found []match.Located
	blind []match.Blind

	matched []match.Located // what u may load
	unseen  []Finding       // what u may load that cannot be seen
	typed   []typedAgent    // the agent types a workflow's scripts name

	pre  []Finding       // the adverse verdicts read by id, before any walk
	rest []match.Located // the matches left to walk
	obs  []baseline.Observation
	// cleared were read by blockedByFolder: no adverse verdict.
	cleared []match.Located

	served     *hookstate.Served // what the session's client read, once read
	servedRead bool              // served could be read
}

// servedCopies are what the session's client read, read from tx once. A
// session that cannot be read has nothing kept (ok false).
func (j *judging) servedCopies(tx *baseline.Tx) (hookstate.Served, bool) {
	if j.served == nil {
		j.served = &hookstate.Served{}
		if j.u.Session != "" {
			sv, err := tx.SessionServed().Of(j.u.Session)
			*j.served, j.servedRead = sv, err == nil
		}
	}
	return *j.served, j.servedRead
}

// onServed judges f, of s, on the copy the session's client serves (a
// nested skill's, or one served.AtStart's). A ConfigChange is judged
// on the disk: the client is about to read it.
func (j *judging) onServed(tx *baseline.Tx, s *baseline.Standing, f Finding) (Finding, error) {
	now := j.env.Now
	if now.IsZero() {
		now = time.Now()
	}
	if f.Root || j.u.Event == hookio.EventConfigChange {
		return f, nil
	}
	switch {
	case s.Root.Kind == claude.Skills && slices.Contains(j.env.nestedFolders(), s.Root.Path):
		if f.State >= Anomalous {
			return f, nil
		}
		sv, ok := j.servedCopies(tx)
		return onCopy(s, f, served.JudgeNested(s, f.Digest, sv, ok, now)), nil
	case served.AtStart(s.Root, j.env.Nested):
		sv, ok := j.servedCopies(tx)
		if j.u.Session == "" {
			ok = true // no session to read: judged as one whose start kept nothing
		}
		c, err := served.JudgeAtStart(tx, s, f.Digest, sv, ok, now)
		return onCopy(s, f, c), err
	}
	return f, nil
}

// reach gathers every candidate u may load, and a finding for each place
// it may load from unseen.
func (j *judging) reach(ctx context.Context) {
	u := j.u
	j.matched = j.named(ctx)
	refs, capped := match.Referenced(u.Name, j.found, j.matched)
	j.matched = append(j.matched, refs...)
	j.unseen = unobservable(u, j.blind, j.matched)
	if u.Kind == resolve.Workflow && j.started() {
		capped = true
	}
	if capped {
		j.unseen = append(j.unseen, Finding{Candidate: resolve.Candidate{Kind: u.Kind}, State: Anomalous, Root: true, Anomaly: anomaly.Depth, Capped: true})
	}
	if u.Script != "" {
		// The client runs the file named over the call's own script. A
		// call allowed without its permission check runs the script: both
		// are judged.
		j.unseen = append(j.unseen, scriptFinding(u))
	}
}

// named is the candidates u names: by path, else by name with the nested
// commands of that name.
func (j *judging) named(ctx context.Context) []match.Located {
	u := j.u
	switch {
	case u.Kind == resolve.Workflow && u.Script != "" && u.Name == "" && u.Path == "":
		return nil // no file runs: the script is asked, what it starts judged
	case u.Path != "" && u.Kind == resolve.Workflow:
		// A script inside a skill was never reviewed as a workflow.
		var kept []match.Located
		for _, l := range match.ByPath(j.found, u.Path) {
			if match.RunsAsWorkflow(&l) {
				kept = append(kept, l)
			}
		}
		return kept
	case u.Path != "":
		return match.ByPath(j.found, u.Path)
	}
	matched := match.Resolve(u.Kind, u.Name, j.found)
	return append(matched, match.Nested(ctx, u.Kind, u.Name, j.found, matched)...)
}

// started adds what a workflow's scripts start, which runs with no
// PreToolUse call of its own. capped: their references went past the
// bounds.
func (j *judging) started() (capped bool) {
	st, hidden, typed := starts(j.u, j.found, j.matched, j.blind)
	j.typed = typed
	j.unseen = append(j.unseen, hidden...)
	for _, s := range st {
		more, c := match.Referenced(s.Name, j.found, []match.Located{s.L})
		j.matched = append(j.matched, s.L)
		j.matched = append(j.matched, more...)
		capped = capped || c
	}
	j.matched = match.Once(j.matched)
	return capped
}

// read reads the verdicts of the matches by id, then walks the rest. The
// walk comes before the store is opened for writing: its lock is never
// held during a walk. The daemon's cache is never read here. It lags the
// disk by its debounce, and the gate judges the bytes about to load.
// A match blockedByFolder read, not adverse, is not read again (issue
// 34): the answer reads every record after the walk.
func (j *judging) read(ctx context.Context) error {
	var err error
	if match.AllIn(j.matched, j.cleared) {
		j.pre, j.rest = nil, j.matched
	} else if j.pre, j.rest, _, err = adverseFirst(ctx, j.matched, j.env.Store); err != nil {
		return err
	}
	j.obs, err = observe(ctx, j.rest)
	return err
}

// answer judges what was read under the store's policy and journals an
// ask or a deny.
func (j *judging) answer(ctx context.Context) (Result, error) {
	st, err := openStore(storeOptions(ctx, j.env.Store))
	if err != nil {
		return Result{}, err
	}
	defer st.Close()
	var res Result
	err = st.View(func(tx *baseline.Tx) error {
		var err error
		res, err = j.judge(tx)
		return err
	})
	if j.u.DenyOnly && res.Answer != Deny {
		res.Answer, res.Reason = None, ""
	}
	if err == nil && res.Answer != None {
		// Only an ask or a deny writes. The common silent answer never
		// commits (nor syncs) a transaction.
		err = st.Update(func(tx *baseline.Tx) error { return journal(tx, j.u, res, j.env.Now) })
	}
	if err != nil {
		return Result{Policy: res.Policy}, fmt.Errorf("%w: judging: %w", ErrStore, err)
	}
	return res, nil
}

// judge finds every candidate's state in tx and answers under its policy.
// On an error, the result holds the policy when it was read.
func (j *judging) judge(tx *baseline.Tx) (Result, error) {
	res := Result{Findings: append(slices.Clone(j.pre), j.unseen...)}
	p, err := tx.Policy().Get()
	if err != nil {
		return res, err
	}
	more, err := typedFindings(tx, j.typed, j.env)
	if err != nil {
		return res, err
	}
	res.Findings = append(res.Findings, more...)
	if res.Policy, err = ParsePolicy(p); err != nil {
		return res, err
	}
	sts, err := tx.CompareObserved(j.obs)
	if err != nil {
		return res, err
	}
	for i := range sts {
		s := &sts[i]
		f, err := finding(tx, s, candidateFor(j.u, s, j.rest))
		if err != nil {
			return res, err
		}
		if f, err = j.onServed(tx, s, f); err != nil {
			return res, err
		}
		res.Findings = append(res.Findings, f)
	}
	res.Answer, res.Reason = Judge(res.Policy, res.Findings)
	return res, nil
}

// unknown answers a use whose name resolves to no candidate skillwire
// observed. Unknown is a finding, never silence. One of the client's own
// skills or agents is nothing to judge while every folder the session
// loads from is observed. Any other name may load what skillwire cannot
// see, from a folder it does not watch. So it is judged as new and never
// reviewed. The name of a candidate recorded BLOCK or SUSPECT is held as
// that verdict. The file it loads may be that candidate, moved out of
// skillwire's sight.
func unknown(ctx context.Context, u Use, env Env) (Result, error) {
	workflows := u.Kind == resolve.Workflow
	if u.Path != "" && !workflows || u.Kind == resolve.Agent && u.Name == "" {
		return Result{}, nil
	}
	res := Result{Policy: DefaultPolicy, Findings: []Finding{unknownFinding(u, env)}}
	o := storeOptions(ctx, env.Store)
	o.Create, o.ReadOnly = false, true
	err := baseline.View(o, func(tx *baseline.Tx) error {
		p, err := tx.Policy().Get()
		if err != nil {
			return err
		}
		if res.Policy, err = ParsePolicy(p); err != nil {
			return err
		}
		res.Findings[0], err = heldNamed(tx, u, res.Findings[0])
		return err
	})
	switch {
	case errors.Is(err, baseline.ErrAbsent): // no store yet: the default policy
	case errors.Is(err, baseline.ErrBusy):
		return Result{}, fmt.Errorf("%w: %w", ErrLocked, err)
	case err != nil:
		return Result{}, fmt.Errorf("%w: judging: %w", ErrStore, err)
	}
	res.Answer, res.Reason = Judge(res.Policy, res.Findings)
	if res.Answer == None {
		return Result{Policy: res.Policy}, nil
	}
	return res, nil
}

// unknownFinding is the finding of u, whose name resolves to no candidate
// skillwire observed. It is made before the store is read (heldNamed).
func unknownFinding(u Use, env Env) Finding {
	workflows := u.Kind == resolve.Workflow
	f := Finding{Candidate: resolve.Candidate{Kind: u.Kind, Folder: []byte(u.Name)}, State: New, Unknown: true, AddedUnknown: env.AddedUnknown}
	switch {
	case workflows && (u.Script != "" || u.Path != ""):
		f = scriptFinding(u)
	case workflows: // read from watched folders only, never an added one's
		f.AddedUnknown = false
		if workflow.Builtin(u.Name) {
			f.State, f.Builtin = Vetted, true // no file replaces the client's own
		}
	case builtin.Is(u.Name, u.Kind == resolve.Agent):
		// A file of a folder skillwire does not watch may serve a
		// built-in's name: the client prefers the file. While the
		// session's added folders are all observed, that file would have
		// matched. So the name is familiar: strict asks, and balanced lets
		// the client's own run. While they are not, the name is new, and
		// asked.
		f.Builtin = true
		if !env.AddedUnknown {
			f.State = Familiar
			if u.Kind == resolve.Agent {
				f.State = Vetted // the client's own agents: nothing to judge
			}
		}
	}
	f.Twin = mayBeTwin(u, env)
	return f
}

// heldNamed is f, u's finding of no observed candidate. It is held as the
// candidate recorded BLOCK or SUSPECT that u's name names, if any.
func heldNamed(tx *baseline.Tx, u Use, f Finding) (Finding, error) {
	l, ok, err := adverse.Named(tx, u.Kind, u.Name)
	if ok {
		f.State, f.Like = likeState(l), l.Text
	}
	return f, err
}

// twinFinding is the finding of u while mayBeTwin. A plugin's inline twin
// skillwire cannot observe may serve it.
func twinFinding(u Use) Finding {
	return Finding{Candidate: resolve.Candidate{Kind: u.Kind, Folder: []byte(u.Name)}, State: New, Unknown: true, AddedUnknown: true, Twin: true}
}

// mayBeTwin: u names a plugin's skill, agent or command (plugin:name).
// And the session loads plugins skillwire cannot all observe or name. One
// of them may be that plugin's inline twin.
func mayBeTwin(u Use, env Env) bool {
	return env.PluginsUnknown && u.Path == "" && strings.Contains(u.Name, ":")
}

// likeState is the state a new candidate is held in, as the one it
// resembles.
func likeState(l adverse.Like) State {
	if l.Block {
		return Blocked
	}
	return Suspect
}

// verdictWord names the verdict s holds a candidate as, in a reason.
func (s State) verdictWord() string { return adverse.Word(s == Blocked) }

// held is f, new, held the way the adverse candidate it resembles is.
func held(tx *baseline.Tx, s *baseline.Standing, f Finding) (Finding, error) {
	l, ok, err := adverse.Resembled(tx, s, f.Candidate)
	if ok {
		f.State, f.Like = likeState(l), l.Text
	}
	return f, err
}

// blockedByFolder answers a use whose name is the folder or file of a
// candidate under the policy's worst verdict. It answers before any other
// candidate is read. Listing a root costs little. Reading and parsing
// every frontmatter in it is the attacker's to make slow: 200 skills of 64
// KiB each. So a BLOCK named by its folder is denied whatever else the
// roots hold. A root that could not be listed is probed by the name
// itself: a fanout of 4,100 empty folders, say. Its record, by id, needs
// no listing. ok is false when nothing here decides the answer. Then
// j.cleared are the candidates whose records it read, none adverse.
func (j *judging) blockedByFolder(ctx context.Context) (Result, bool, error) {
	u, env, found, blind := j.u, j.env, j.found, j.blind
	if u.Path != "" || u.Kind == resolve.Workflow {
		return Result{}, false, nil // a workflow is named by what its file says
	}
	plugin, local, namespaced := strings.Cut(u.Name, ":")
	if !namespaced {
		plugin, local = "", u.Name
	}
	if local == "" {
		return Result{}, false, nil
	}
	var cands []match.Located
	for _, l := range found {
		if resolve.Reaches(u.Kind, l.Cand.Kind) && bytes.Equal(l.Cand.Plugin, []byte(plugin)) && namespaced == (len(l.Cand.Plugin) > 0) &&
			l.Cand.AnswersTo(u.Kind, local, false) {
			cands = append(cands, l)
		}
	}
	for _, b := range blind {
		c := resolve.PlaceOf(b.Root)
		if namespaced || b.Root.Kind == claude.Plugins || b.Root.Kind == claude.PluginSources || !resolve.Reaches(u.Kind, c.Kind) {
			continue
		}
		names := []string{local}
		if b.Root.Kind != claude.Skills {
			names = []string{local + ".md", local}
		}
		for _, n := range names {
			if claude.ValidName(b.Root.Kind, []byte(n)) {
				c.Folder = []byte(local)
				cands = append(cands, match.Located{Root: b.Root, Name: []byte(n), Cand: c, Cfg: env.Walker})
			}
		}
	}
	if len(cands) == 0 {
		return Result{}, false, nil
	}
	pre, rest, p, err := adverseFirst(ctx, cands, env.Store)
	if j.cleared = rest; err != nil || len(pre) == 0 {
		return Result{}, false, err
	}
	res := Result{Policy: p, Findings: pre}
	if res.Answer, res.Reason = Judge(p, pre); res.Answer == None || res.Answer != Decide(p, Blocked) {
		return Result{}, false, nil // the rest may answer worse: judge it all
	}
	err = baseline.Update(storeOptions(ctx, env.Store), func(tx *baseline.Tx) error { return journal(tx, u, res, env.Now) })
	if err != nil {
		return Result{Policy: p}, true, fmt.Errorf("%w: judging: %w", ErrStore, err)
	}
	return res, true, nil
}

// adverseFirst reads the record of every match by id before any walk. An
// adverse verdict on the record stays in force whatever the content. So
// those matches are judged without reading a byte of them. A BLOCK padded
// with gigabytes is denied in time. rest is what is left to walk. It is
// nothing when the adverse findings already give the policy's worst
// answer.
func adverseFirst(ctx context.Context, matched []match.Located, o baseline.Options) (pre []Finding, rest []match.Located, p Policy, err error) {
	o = storeOptions(ctx, o)
	o.Create, o.ReadOnly = false, true
	st, err := openStore(o)
	switch {
	case errors.Is(err, baseline.ErrAbsent):
		return nil, matched, 0, nil // no store, no verdicts
	case err != nil:
		return nil, nil, 0, err
	}
	defer st.Close()
	err = st.View(func(tx *baseline.Tx) error {
		s, err := tx.Policy().Get()
		if err != nil {
			return err
		}
		if p, err = ParsePolicy(s); err != nil {
			return err
		}
		worst := None
		for _, m := range matched {
			id := tx.ID(m.Root.Path, m.Name)
			rec, err := tx.Record(id)
			if err != nil {
				return err
			}
			if rec == nil || rec.Verdict == nil || !verdict.Adverse(rec.Verdict.Verdict) {
				rest = append(rest, m)
				continue
			}
			f := Finding{Candidate: m.Cand, State: adverseState(rec.Verdict), Reviewed: rec.Verdict.At}
			f.Candidate.ID = id
			pre = append(pre, f)
			worst = Worst(worst, Decide(p, f.State))
		}
		if len(pre) > 0 && worst == Decide(p, Blocked) {
			rest = nil // no walk can make the answer worse
		}
		return nil
	})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w: reading verdicts: %w", ErrStore, err)
	}
	return pre, rest, p, nil
}

// adverseState is the state an adverse verdict v puts its candidate in.
func adverseState(v *baseline.Verdict) State {
	if v.Verdict == verdict.Block {
		return Blocked
	}
	return Suspect
}

// fallbackPolicy is the policy to answer under when the store could not be
// read. It is the mirror beside the store, else the default.
func fallbackPolicy(o baseline.Options) Policy {
	if p, err := ParsePolicy(o.Policy); o.Policy != "" && err == nil {
		return p // the administrator's, whatever the mirror says
	}
	if s, ok := baseline.GatePolicyMirror(o.Dir); ok {
		if p, err := ParsePolicy(s); err == nil {
			return p
		}
	}
	return DefaultPolicy
}

// openStore opens the store. A held lock is reported as ErrLocked, any
// other failure as ErrStore.
func openStore(o baseline.Options) (*baseline.Store, error) {
	st, err := baseline.Open(o)
	if errors.Is(err, baseline.ErrBusy) {
		return nil, fmt.Errorf("%w: %w", ErrLocked, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStore, err)
	}
	return st, nil
}

// storeOptions bounds the lock wait by ctx's deadline. It creates an absent
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

// unobservable judges Anomalous every root that could not be listed and
// that u's candidate could live in and win from. A name that may resolve
// into a root the gate cannot see cannot be judged. A root is passed over
// only when a match found elsewhere outranks anything it could hold.
func unobservable(u Use, blind []match.Blind, matched []match.Located) []Finding {
	var out []Finding
	for _, b := range blind {
		c := resolve.PlaceOf(b.Root)
		_, _, namespaced := strings.Cut(u.Name, ":")
		switch {
		case u.Path != "":
			if !strings.HasPrefix(u.Path, b.Root.Path+"/") {
				continue
			}
		case b.Root.Kind == claude.Plugins || b.Root.Kind == claude.PluginSources:
			if !namespaced {
				continue
			}
			c.Kind = u.Kind
		case namespaced && c.Kind != resolve.Workflow || !resolve.Reaches(u.Kind, c.Kind) || slices.ContainsFunc(matched, func(m match.Located) bool { return resolve.Beats(u.Kind, m.Cand, c) }):
			continue
		}
		out = append(out, Finding{Candidate: c, State: Anomalous, Anomaly: b.Reason, Root: true})
	}
	return out
}

// observe reads each matched candidate as it is now. It walks that one
// candidate under the walker's proofs and limits.
func observe(ctx context.Context, matched []match.Located) ([]baseline.Observation, error) {
	if len(matched) == 0 {
		return nil, nil
	}
	var roots []claude.Root
	for _, m := range matched {
		if !hasRoot(roots, m.Root.Path) {
			roots = append(roots, m.Root)
		}
	}
	obs := make([]baseline.Observation, len(roots))
	for i, r := range roots {
		w := &walker.Root{Spec: r.Spec()}
		for _, m := range matched {
			if m.Root.Path != r.Path {
				continue
			}
			w.Candidates = append(w.Candidates, walker.ObserveIn(ctx, w.Spec, m.Name, m.Cfg))
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

// candidateFor is the candidate of the standing s as the gate resolved it.
// It has its frontmatter name, when read, and the store's id. Its folder
// is as observed now. A plugin's is of the kind u asked for.
func candidateFor(u Use, s *baseline.Standing, matched []match.Located) resolve.Candidate {
	c := resolve.CandidateOf(s.Root, s.Name, s.Observed.Kind)
	for _, m := range matched {
		if m.Root.Path == s.Root.Path && bytes.Equal(m.Name, s.Name) {
			c.Name, c.Via = m.Cand.Name, m.Cand.Via
		}
	}
	if c.Scope == resolve.Plugin {
		c.Kind = u.Kind
		if c.Kind == 0 {
			c.Kind = resolve.Skill // a ConfigChange names a plugin's file, not a use
		}
	}
	c.ID = s.ID
	return c
}

// finding maps a standing to the gate's state, the worst that applies.
// First comes an adverse verdict in force. Then an anomaly or a partial
// read. Then a review the content left: pending, halted. Then never
// reviewed: new, or changed since skillwire told of it. Then first-use,
// or seen and unchanged. Last comes SAFE at exactly this digest.
func finding(tx *baseline.Tx, s *baseline.Standing, c resolve.Candidate) (Finding, error) {
	f := Finding{Candidate: c, Digest: s.Digest()}
	obs := s.Observed
	rec := s.Prior
	if v := s.Verdict; v != nil && verdict.Adverse(v.Verdict) {
		f.State, f.Reviewed = adverseState(v), v.At
		return f, nil
	}
	if an := obs.Anomalies(); obs.Partial() || len(an) > 0 {
		f.State, f.Partial = Anomalous, obs.Partial()
		if len(an) > 0 {
			f.Anomaly = an[0].Reason
		}
		return f, nil
	}
	reviewed := rec != nil && (rec.Review != nil || rec.Verdict != nil && rec.Verdict.Verdict == verdict.Safe)
	switch st := s.Status(); {
	case st == baseline.StatusPending || st == baseline.StatusHalted:
		f.State = Pending
		if g, ok, err := carriedFinding(tx, s, f); ok || err != nil {
			return g, err
		}
	case s.Verdict != nil: // SAFE, and in force only at exactly this digest
		f.State = Vetted
		f.Reviewed = s.Verdict.At
		return f, nil
	case s.State == baseline.New:
		f.State = New
		return newFinding(tx, s, f)
	case s.State == baseline.Unchanged && (rec.Status == baseline.StatusBaseline || rec.AllowedAt(s.Digest())):
		// Accepted by the store's very first run. Or the person allowed
		// it at use, at these bytes.
		f.State = Familiar
		f.Change.On = rec.Observed
		return f, nil
	case s.State == baseline.Unchanged:
		// Told to a session, never decided by a person. Telling the
		// model is no review.
		f.State, f.Undecided = New, true
		f.Change.On = rec.FirstSeen
		return held(tx, s, f)
	case reviewed:
		f.State = Pending
	default:
		f.State = New // changed since skillwire told of it, never reviewed
	}
	if rec.Review != nil {
		f.Reviewed = rec.Review.At
	}
	ch, err := change(tx, s)
	f.Change = ch
	return f, err
}

// change counts the files that differ from the version last delivered.
// That may be the reviewed one. No audit log is read on this path. So the
// reason says nothing of announcements.
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
	c.count(m, &s.Observed.Manifest)
	return c, nil
}

// count adds the entries that differ from a to b to c.
func (c *Change) count(a, b *snapshot.Manifest) {
	for _, d := range snapshot.Diff(a, b) {
		switch d.Type {
		case snapshot.Added:
			c.Added++
		case snapshot.Removed:
			c.Removed++
		default:
			c.Modified++
		}
	}
}

// Asked is the id of every candidate in r that asks or denies under its
// policy, as the journal notes them. A root that could not be listed has
// none.
func (r Result) Asked() []string {
	var ids []string
	for _, f := range r.Findings {
		if !f.Root && f.Candidate.ID != "" && Decide(r.Policy, f.State) != None {
			ids = append(ids, f.Candidate.ID)
		}
	}
	return ids
}

// journal notes every candidate that asked or denied, with its own reason.
func journal(tx *baseline.Tx, u Use, res Result, now time.Time) error {
	var asked []hookstate.Asked
	for _, f := range res.Findings {
		if f.Root || !anomaly.IsID(f.Candidate.ID) {
			continue // an unlisted root, a name of no candidate: nothing to note on
		}
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
		if err := tx.Notes().Add(n); err != nil {
			return err
		}
		if a == Ask && f.Digest != nil && u.ToolUseID != "" {
			asked = append(asked, hookstate.Asked{ID: f.Candidate.ID, Digest: *f.Digest})
		}
	}
	if len(asked) == 0 || res.Answer != Ask {
		return nil
	}
	// When the person allows this ask, the call's PostToolUse brings the
	// answer back. An ask that is never answered is dropped later.
	err := tx.Asks().Keep(u.ToolUseID, hookstate.Ask{Session: u.Session, Tool: u.Kind.String(), Name: u.Name, At: now.UTC(), Asked: asked})
	if errors.Is(err, hookstate.ErrToolUseID) {
		return nil // an id skillwire does not keep: the use is asked again next time
	}
	return err
}

// Outcome is what a hook does with one use: print Answer with Reason, or
// nothing. Note, when set, says on stderr why the gate could not judge.
type Outcome struct {
	Answer Answer
	Reason string
	Note   string
	Result Result
}

// run is Check under a hard deadline. Past it, the answer is fail's. So it
// is on any internal error, a panic included, and on a locked store. fail
// answers under the store's policy when it was read, else under
// fallbackPolicy. A store that cannot be opened or read (ErrStore), its
// policy unread, is answered as strict.
func run(ctx context.Context, u Use, env Env, deadline time.Duration) Outcome {
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
	switch {
	case p.Valid():
	case errors.Is(c.err, ErrStore):
		p = Strict // the person's choice is unreadable: never weaker than it
	default:
		p = fallbackPolicy(env.Store)
	}
	f := fail(p, c.err)
	o := Outcome{Answer: f.Answer, Note: f.Note, Result: c.res}
	if f.Answer != None {
		o.Reason = f.Note
	}
	return o
}
