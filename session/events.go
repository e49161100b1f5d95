package session

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/snapshot"
)

// fleetEvents are what a delivered session start tells a fleet. They hold
// each candidate it consumed as new, changed, removed or partial. They
// hold each auto-accept and halt applied. They hold each disagreement with
// the client's install record it told, every session while it stands. The
// session's id comes from the hook.
func fleetEvents(s Start, adv *Advisory, in *Input, content func(snapshot.Hash) ([]byte, bool)) []events.Event {
	origin := events.Origin{SessionID: s.Session, Via: "session-start"}
	auto, rec := in.Auto, in.Reconciled
	out := recordEvents(origin, in, s.Places.Config)
	for i := range adv.Consume {
		st := &adv.Consume[i]
		out = append(out, fileEvents(origin, st, rec[st.ID], content)...)
		obs := events.Observation{State: string(st.State), Status: string(st.Status())}
		if d := st.Digest(); d != nil {
			obs.Digest = d.String()
		} else if st.State != baseline.Removed {
			obs.State = "partial"
		}
		if st.Prior != nil && st.Prior.Digest != nil {
			obs.Previous = st.Prior.Digest.String()
		}
		if st.Verdict != nil {
			obs.Verdict = st.Verdict.Verdict
		}
		for _, k := range in.Findings[st.ID] {
			obs.Findings = append(obs.Findings, events.FindingCount{Kind: k.Kind, Count: k.Count})
		}
		if st.Observed != nil {
			for _, a := range st.Observed.Anomalies() {
				obs.Anomalies = append(obs.Anomalies, a.Reason.String())
			}
		}
		c := fleetCandidate(st)
		out = append(out, events.CandidateObserved(origin, c, obs))
		if st.Observed != nil {
			if facts := settings.ModTexts(st.Root.Kind, st.Observed.Canonical); facts != nil {
				out = append(out, events.Mod(origin, c, obs.Digest, facts, in.ModPolicy.String(), in.ModPolicy.Held()))
			}
		}
	}
	for i := range auto {
		o := &auto[i]
		c, to := fleetCandidate(o.St), ""
		if d := o.St.Digest(); d != nil {
			to = d.String()
		}
		if !o.Decision.Accept {
			out = append(out, events.Halt(origin, c, to, o.Decision.Reason))
			continue
		}
		from := ""
		if o.St.Prior != nil && o.St.Prior.Digest != nil {
			from = o.St.Prior.Digest.String()
		}
		out = append(out, events.AutoAccept(origin, c, from, to, o.Decision.Source))
	}
	return out
}

// maxFileEvents bounds the file events of one candidate in one session.
const maxFileEvents = 256

// fileEvents are a delivered candidate's changed files (File System
// Activity), each with its reconciliation class. A file added or modified
// whose bytes are kept carries its SHA-256, which SIEMs index.
func fileEvents(origin events.Origin, st *baseline.Standing, r *reconcile.Reconciliation, content func(snapshot.Hash) ([]byte, bool)) []events.Event {
	if r == nil {
		return nil
	}
	c := fleetCandidate(st)
	var out []events.Event
	for i, ch := range r.Changes {
		if i == maxFileEvents {
			break
		}
		rc := events.Reconciliation{Class: string(ch.Class), Why: string(ch.Why), At: r.Bound[string(ch.Change.Path)]}
		if n := ch.Change.New; n != nil && n.Kind == snapshot.File && content != nil {
			if b, ok := content(n.Hash); ok {
				rc.SHA256 = sha256.Sum256(b)
			}
		}
		out = append(out, events.FileChange(origin, c, ch.Change, rc))
	}
	return out
}

func fleetCandidate(st *baseline.Standing) events.Candidate {
	name, _ := st.Root.Display(st.Name)
	kind := claude.CandidateKind(st.Root.Kind, st.Name)
	if st.Observed != nil {
		kind = claude.KindOf(st.Root.Kind, st.Name, &st.Observed.Manifest)
	}
	return events.Candidate{ID: st.ID, Kind: kind, Scope: string(st.Root.Scope), Name: name, Path: st.Root.Path + "/" + string(st.Name)}
}

// appendFleetEvents writes them beside the store. A failure is logged,
// never fatal to the session start.
func appendFleetEvents(ctx context.Context, s Start, adv *Advisory, in *Input, content func(snapshot.Hash) ([]byte, bool)) {
	evs := fleetEvents(s, adv, in, content)
	if err := events.Append(ctx, s.Store.Dir, evs...); err != nil {
		s.Log.Warn().Err(err).Msg("session-start: the fleet events were not written")
		if s.Stderr != nil {
			fmt.Fprintf(s.Stderr, "skillwire: the fleet events of this session start were not written: %s\n", anomaly.Defang(err.Error()))
		}
	}
}
