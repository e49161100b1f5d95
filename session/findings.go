package session

import (
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/findings"
)

// A candidate new or changed since its reference (its SAFE review, else
// what was delivered) has its content read for findings. The bytes are
// those the session observed, staged by its walk or kept by the store.
// The advisory and the person's line count them by kind. No finding's
// text reaches either: a kind is one of findings.Kinds, fixed words.

// contentFindings counts, per subject, the findings of its current files
// against its reference's. Only subjects are read: new or changed
// candidates. findings.Of bounds each one's files and bytes.
func contentFindings(sub reconcile.Subjects, content func(snapshot.Hash) ([]byte, bool)) map[string][]findings.KindCount {
	out := map[string][]findings.KindCount{}
	for _, c := range sub.Candidates {
		if c.Current == nil || c.Current.Partial {
			continue
		}
		if ks := findings.CountsSince(c.Stored, c.Current, content, c.Name); len(ks) > 0 {
			out[c.ID] = ks
		}
	}
	return out
}
