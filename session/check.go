package session

import (
	"bytes"
	"slices"

	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// CheckSubjects is what `check` reconciles. Each candidate of roots is
// compared with the version a person reviewed SAFE, else its first-use
// version, using what obs found there now. A candidate with neither is
// compared with nothing. It was first seen after the first run and never
// reviewed, or is not in the store yet. So all its files stay listed as
// added until a person records a verdict. A candidate whose removal was
// delivered was last seen absent. incomplete lists the candidates whose
// root could not be listed: their absence says nothing. Candidates come
// in scan's order, by root, then by name.
func CheckSubjects(tx *baseline.Tx, roots []claude.Root, obs []baseline.Observation) (cands []reconcile.Candidate, incomplete []string, err error) {
	known := map[string]int{}
	for i, r := range roots {
		known[r.Path] = i + 1
	}
	recs, err := tx.Records()
	if err != nil {
		return nil, nil, err
	}
	recorded := map[string]bool{}
	for _, r := range recs {
		if r.Digest == nil || known[string(r.Root)] == 0 {
			continue
		}
		recorded[r.ID] = !r.Removed
		ref, err := tx.Reviews().Reference(r.ID)
		if err != nil {
			return nil, nil, err
		}
		c := reconcile.Candidate{ID: r.ID, Root: string(r.Root), Name: r.Name}
		switch {
		case r.Removed:
			c.Since = r.Updated
		case ref != nil:
			c.Stored, c.Since = ref.Manifest, ref.At
		}
		found, listed := currentOf(obs, c.Root, c.Name)
		if !listed {
			incomplete = append(incomplete, c.ID)
			continue
		}
		var canon []byte
		if found != nil {
			c.Current, canon = &found.Manifest, found.Canonical
		}
		c.RecordBinds(roots, r, canon, tx.Extract(r.ID), tx.ReviewedExtract(r.ID))
		cands = append(cands, c)
	}
	for _, o := range obs {
		for i := range o.Walk.Candidates {
			oc := &o.Walk.Candidates[i]
			if id := tx.ID(o.Root.Path, oc.Name); !recorded[id] && known[o.Root.Path] != 0 {
				c := reconcile.Candidate{ID: id, Root: o.Root.Path, Name: oc.Name, Current: &oc.Manifest}
				c.Binds(o.Root, oc.Canonical)
				cands = append(cands, c)
			}
		}
	}
	slices.SortFunc(cands, func(a, b reconcile.Candidate) int {
		if d := known[a.Root] - known[b.Root]; d != 0 {
			return d
		}
		return bytes.Compare(a.Name, b.Name)
	})
	return cands, incomplete, nil
}

// currentOf finds root/name in the observation. listed is false when the
// root could not be listed.
func currentOf(obs []baseline.Observation, root string, name []byte) (c *walker.Candidate, listed bool) {
	for _, o := range obs {
		if o.Root.Path != root {
			continue
		}
		for i := range o.Walk.Candidates {
			if bytes.Equal(o.Walk.Candidates[i].Name, name) {
				return &o.Walk.Candidates[i], true
			}
		}
		return nil, len(o.Walk.Anomalies) == 0
	}
	return nil, false
}
