package baseline

import (
	"time"
)

var keyFirstRun = []byte("firstrun") // when the first session was delivered

// FirstRunDone reports whether this store's first run was delivered. It is
// recorded even when that run saw no candidate. So everything that appears
// later is new, never accepted on first use.
//
// A store created with the mark's rule has its first run only by the mark. A
// verdict recorded before any session is not one. A store written before the
// mark existed has no creation marker. It counts as done once it holds a
// record. Its first write transaction writes the mark (markLegacyFirstRun).
// So forgetting every record later does not bring first use back.
func (t *Tx) FirstRunDone() bool {
	m := t.tx.Bucket(bucketMeta)
	if m.Get(keyFirstRun) != nil {
		return true
	}
	if m.Get(keyCreated) != nil {
		return false
	}
	k, _ := t.tx.Bucket(bucketCandidates).Cursor().First()
	return k != nil
}

// MarkFirstRun records that the first run was delivered at now. A later call
// keeps the first time.
func (t *Tx) MarkFirstRun(now time.Time) error {
	m := t.tx.Bucket(bucketMeta)
	if m.Get(keyFirstRun) != nil {
		return nil
	}
	b, err := now.UTC().MarshalText()
	if err != nil {
		return err
	}
	return m.Put(keyFirstRun, b)
}

// markLegacyFirstRun writes the first-run mark on a legacy store that holds a
// record. A legacy store was written before the mark existed. The legacy
// rule's "done" is made permanent before anything can remove the records it
// rests on.
func (t *Tx) markLegacyFirstRun(now time.Time) error {
	if !t.FirstRunDone() || t.tx.Bucket(bucketMeta).Get(keyFirstRun) != nil {
		return nil
	}
	return t.MarkFirstRun(now)
}
