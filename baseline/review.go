package baseline

import "time"

// MarkTold counts one more session told of each pending candidate in ids:
// "told N times since DATE" is what the next session repeats. Records no
// longer pending are left alone.
func (t *Tx) MarkTold(ids []string, now time.Time) error {
	for _, id := range ids {
		r, err := t.Record(id)
		if err != nil {
			return err
		}
		if r == nil || r.Removed {
			continue
		}
		v, err := t.verdictInForce(r, r.Digest)
		if err != nil {
			return err
		}
		if StatusOf(r, r.Digest, v) == r.Status {
			continue
		}
		if r.Told == 0 || r.ToldSince.IsZero() {
			r.ToldSince = now.UTC()
		}
		r.Told++
		if err := t.put(r); err != nil {
			return err
		}
	}
	return nil
}
