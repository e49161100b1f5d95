package history

import (
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/walker"
)

// Which versions are kept is decided here alone, for the commands and the
// daemon. A version is kept only when its observation is complete.

// Wants lists the versions worth keeping among standings just delivered.
// They are every new or changed candidate with a complete observation, as
// how: the deliverer, baseline.HowSession or HowDaemon. On first use, new
// ones are HowFirstUse. Unchanged, partial and removed candidates keep
// nothing.
func Wants(sts []baseline.Standing, bootstrap bool, how baseline.How) []Want {
	var out []Want
	for i := range sts {
		s := &sts[i]
		if s.ID == "" || s.Digest() == nil || s.State != baseline.New && s.State != baseline.Changed {
			continue
		}
		h := how
		if bootstrap && s.State == baseline.New {
			h = baseline.HowFirstUse
		}
		out = append(out, Want{ID: s.ID, Manifest: &s.Observed.Manifest, How: h})
	}
	return out
}

// Delivered lists the versions a delivered session advisory makes worth
// keeping. They are its consumed standings (Wants, as HowSession). Also
// the standings auto-accept accepted, as HowAutoAccept. Auto-accept
// delivers those itself, so they are in no consumed delta.
func Delivered(consumed []baseline.Standing, firstRun bool, accepted []*baseline.Standing) []Want {
	wants := Wants(consumed, firstRun, baseline.HowSession)
	for _, s := range accepted {
		if s.Digest() != nil {
			wants = append(wants, Want{ID: s.ID, Manifest: &s.Observed.Manifest, How: baseline.HowAutoAccept})
		}
	}
	return wants
}

// OnVerdict is the version verdict v was recorded on, candidate c. It is
// kept when the observation is complete and the verdict bound to a digest.
func OnVerdict(id string, c *walker.Candidate, v baseline.Verdict) []Want {
	if baseline.DigestOf(c) == nil || v.Digest == nil {
		return nil
	}
	return []Want{{ID: id, Manifest: &c.Manifest, How: baseline.HowVerdict, Verdict: v.Verdict, Reviewer: v.Reviewer}}
}

// Observed lists the versions the daemon keeps from one walk, as
// HowDaemon. One is each complete candidate of roots that an event says
// changed or appeared. Another is every complete candidate of a root
// observed for the first time (fresh, by root path). id names a candidate:
// the store's baseline.Tx.ID.
func Observed(roots []*walker.Root, fresh map[string]bool, events []cache.Event, id func(root string, name []byte) string) []Want {
	seen := map[string]bool{}
	for _, e := range events {
		if e.After != nil {
			seen[string(e.Root)+"\x00"+string(e.Name)] = true
		}
	}
	var wants []Want
	for _, r := range roots {
		for i := range r.Candidates {
			c := &r.Candidates[i]
			if c.Partial() || !fresh[r.Spec.Path] && !seen[r.Spec.Path+"\x00"+string(c.Name)] {
				continue
			}
			wants = append(wants, Want{ID: id(r.Spec.Path, c.Name), Manifest: &c.Manifest, How: baseline.HowDaemon})
		}
	}
	return wants
}
