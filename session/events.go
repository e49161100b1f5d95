package session

import (
	"context"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/events"
)

// fleetEvents are what a delivered session start tells a fleet: each
// candidate it consumed as new, changed, removed or partial, and each
// auto-accept and halt applied. The session's id comes from the hook.
func fleetEvents(session string, adv *Advisory, auto []AutoOutcome) []events.Event {
	origin := events.Origin{SessionID: session, Via: "session-start"}
	var out []events.Event
	for i := range adv.Consume {
		st := &adv.Consume[i]
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
		if st.Observed != nil {
			for _, a := range st.Observed.Anomalies() {
				obs.Anomalies = append(obs.Anomalies, a.Reason.String())
			}
		}
		out = append(out, events.CandidateObserved(origin, fleetCandidate(st), obs))
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

func fleetCandidate(st *baseline.Standing) events.Candidate {
	name, _ := claude.Display(st.Root.Kind, st.Name)
	kind := claude.CandidateKind(st.Root.Kind, st.Name)
	if st.Observed != nil {
		kind = claude.KindOf(st.Root.Kind, st.Name, &st.Observed.Manifest)
	}
	return events.Candidate{ID: st.ID, Kind: kind, Scope: string(st.Root.Scope), Name: name, Path: st.Root.Path + "/" + string(st.Name)}
}

// appendFleetEvents writes them beside the store; a failure is logged,
// never fatal to the session start.
func appendFleetEvents(ctx context.Context, s Start, adv *Advisory, auto []AutoOutcome) {
	evs := fleetEvents(s.Session, adv, auto)
	if err := events.Append(ctx, s.Store.Dir, evs...); err != nil {
		s.Log.Warn().Err(err).Msg("session-start: the fleet events were not written")
	}
}
