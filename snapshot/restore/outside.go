package restore

import (
	"fmt"
	"slices"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// outside splits off the entries of a directory candidate bound from
// outside its folder: a plugin's marketplace.json, walker.NameSpec.Outside.
// A restore never writes them. So it refuses unless they are now what the
// target holds. It returns the target to build. It also returns the
// digests of the candidate now and of the target without them. That is
// what the walk from the parent's descriptor sees.
func (r *Request) outside() (build *snapshot.Manifest, current, target snapshot.Hash, err error) {
	bound := r.Root.BoundPaths(r.Name)
	if len(bound) == 0 {
		return &r.Target.Manifest, r.Current.Digest, r.Target.Digest, nil
	}
	isBound := func(e snapshot.Entry) bool {
		p := string(e.Path)
		_, ok := bound[p]
		_, target := bound[trimTarget(p)]
		return ok || target
	}
	pick := func(m *snapshot.Manifest) []snapshot.Entry {
		var out []snapshot.Entry
		for _, e := range m.Entries {
			if isBound(e) {
				out = append(out, e)
			}
		}
		return out
	}
	if now, want := pick(&r.Current.Manifest), pick(&r.Target.Manifest); !slices.EqualFunc(now, want, sameEntry) {
		for p, s := range bound {
			if !slices.EqualFunc(at(now, p), at(want, p), sameEntry) {
				return nil, snapshot.Hash{}, snapshot.Hash{}, fmt.Errorf("%w: %s is not what the reviewed version bound, and a restore writes only the folder", ErrScript, anomaly.QuoteBytes([]byte(s)))
			}
		}
		return nil, snapshot.Hash{}, snapshot.Hash{}, fmt.Errorf("%w: a file it binds outside its folder is not the reviewed version's", ErrScript)
	}
	strip := func(m snapshot.Manifest) snapshot.Manifest {
		m.Entries = slices.DeleteFunc(slices.Clone(m.Entries), isBound)
		return m
	}
	t := strip(r.Target.Manifest)
	c := strip(r.Current.Manifest)
	if current, err = c.Digest(); err == nil {
		target, err = t.Digest()
	}
	return &t, current, target, err
}

func trimTarget(p string) string {
	if n := len(p) - len(walker.ScriptTargetSuffix); n > 0 && p[n:] == walker.ScriptTargetSuffix {
		return p[:n]
	}
	return p
}

// at are the entries of es for the bound path p (its link's target too).
func at(es []snapshot.Entry, p string) []snapshot.Entry {
	return slices.DeleteFunc(slices.Clone(es), func(e snapshot.Entry) bool { return trimTarget(string(e.Path)) != p })
}

func sameEntry(a, b snapshot.Entry) bool {
	return string(a.Path) == string(b.Path) && a.Kind == b.Kind && a.Hash == b.Hash && a.Size == b.Size &&
		a.Mode == b.Mode && string(a.Target) == string(b.Target) && a.Reason == b.Reason
}
