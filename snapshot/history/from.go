package history

import (
	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
)

// From is the version a diff of candidate id (name of root) starts from
// when none is named. It is its own reviewed, else first-use, version
// (Reviewed). A review may be carried from another candidate: a plugin
// version's from the version it replaces, a rename's from the old name.
// Then, or for a plugin version without a review of its own, it is the
// version replaced, reviewed, else first-use. So a new version is shown as
// it differs from the version a person judged, file by file. It is never
// shown as all of it added. The replaced version's content is shared, by
// file hash, in the content store. That holds whether its folder is still
// in the cache or gone. nil: nothing to start from.
func From(tx *baseline.Tx, root claude.Root, name []byte, id string) (*baseline.Version, error) {
	rec, err := tx.Record(id)
	if err != nil {
		return nil, err
	}
	vs, err := tx.Versions().Of(id)
	if err != nil {
		return nil, err
	}
	if v := Reviewed(rec, vs); v != nil {
		return v, nil
	}
	var rep *baseline.Record
	switch {
	case rec != nil && rec.Review != nil && anomaly.IsID(rec.Review.From) && rec.Review.From != id:
		rep, err = tx.Record(rec.Review.From)
	case root.Kind == claude.Plugins && (rec == nil || rec.Review == nil):
		rep, err = Replaced(tx, root, name)
	}
	if err != nil || rep == nil || rep.ID == id {
		return nil, err
	}
	rvs, err := tx.Versions().Of(rep.ID)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.Review != nil && rec.Review.Digest != nil {
		// The carried review names the very version it vouched for.
		for i := range rvs {
			if rvs[i].Digest == *rec.Review.Digest {
				return &rvs[i], nil
			}
		}
	}
	return Reviewed(rep, rvs), nil
}
