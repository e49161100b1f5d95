package monitor

import (
	"bytes"
	"time"

	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// diffRoot lists the candidates whose digest differs between two
// observations of a root: appeared, changed, vanished. The first
// observation of a root is not a change.
func diffRoot(old, cur *walker.Root, at time.Time) []cache.Event {
	if old == nil {
		return nil
	}
	var out []cache.Event
	prev := map[string]*walker.Candidate{}
	for i := range old.Candidates {
		prev[string(old.Candidates[i].Name)] = &old.Candidates[i]
	}
	for i := range cur.Candidates {
		c := &cur.Candidates[i]
		o := prev[string(c.Name)]
		delete(prev, string(c.Name))
		if o == nil {
			out = append(out, cache.Event{Root: []byte(cur.Spec.Path), Name: c.Name, After: digestOf(c), At: at})
			continue
		}
		if ev, ok := diffCandidate(cur.Spec.Path, o, c, at); ok {
			out = append(out, ev)
		}
	}
	for _, o := range prev {
		out = append(out, cache.Event{Root: []byte(cur.Spec.Path), Name: o.Name, Before: digestOf(o), At: at})
	}
	return out
}

func diffCandidate(root string, old, cur *walker.Candidate, at time.Time) (cache.Event, bool) {
	b, a := digestOf(old), digestOf(cur)
	if b != nil && a != nil && *b == *a || b == nil && a == nil && old.Manifest.Equal(&cur.Manifest) {
		return cache.Event{}, false
	}
	return cache.Event{Root: []byte(root), Name: bytes.Clone(cur.Name), Before: b, After: a, At: at}, true
}

func digestOf(c *walker.Candidate) *snapshot.Hash {
	if c.Partial() {
		return nil
	}
	d := c.Digest
	return &d
}
