package baseline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/snapshot"
	bolt "go.etcd.io/bbolt"
)

// How says how a kept version came to be.
type How string

const (
	HowFirstUse   How = "first-use"   // accepted on first use
	HowSession    How = "session"     // delivered to a session
	HowDaemon     How = "daemon"      // seen by the daemon
	HowVerdict    How = "verdict"     // a verdict was recorded on it
	HowAutoAccept How = "auto-accept" // auto-accepted from a trusted source
	HowRestored   How = "restored"    // put back by restore
	HowDisplaced  How = "displaced"   // taken out of place by restore
)

func (h How) valid() bool {
	switch h {
	case HowFirstUse, HowSession, HowDaemon, HowVerdict, HowAutoAccept, HowRestored, HowDisplaced:
		return true
	}
	return false
}

// Version is one kept version of a candidate: its manifest. In the content
// store it is also the content of its files, when Restorable.
type Version struct {
	Digest snapshot.Hash
	At     time.Time // when it was last kept
	How    How       // how it was last kept
	// Events are every time it was kept, oldest first. Each keeps its own
	// time and how. A restore never re-stamps the verdict that made it.
	Events []VersionEvent
	// Verdict and Reviewer: the verdict recorded on exactly this version.
	Verdict  string
	Reviewer string
	// Restorable: complete, no anomaly, and every file's content kept.
	Restorable bool
	// FirstUse: this version was accepted on first use. How is then
	// first-use, whatever later keeps of it say.
	FirstUse bool
	Manifest snapshot.Manifest
}

// VersionEvent is one time a version was kept. It holds how, and the verdict
// with its reviewer when a verdict or an auto-accept kept it.
type VersionEvent struct {
	At       time.Time `json:"at"`
	How      How       `json:"how"`
	Verdict  string    `json:"verdict,omitempty"`
	Reviewer string    `json:"reviewer,omitempty"`
}

// maxVersionEvents bounds the events kept per version; the oldest go first.
const maxVersionEvents = 64

// Protected reports whether retention must never drop v: it carries a
// verdict or the first-use acceptance.
func (v *Version) Protected() bool { return v.Verdict != "" || v.FirstUse }

var (
	bucketVersions = []byte("versions") // id -> digest -> version, and keyLatest
	keyLatest      = []byte("latest")   // the digest kept last
)

// versionJSON is a stored version; the manifest in its canonical encoding.
type versionJSON struct {
	Digest     snapshot.Hash  `json:"digest"`
	At         time.Time      `json:"at"`
	How        How            `json:"how"`
	Verdict    string         `json:"verdict,omitempty"`
	Reviewer   string         `json:"reviewer,omitempty"`
	Restorable bool           `json:"restorable"`
	FirstUse   bool           `json:"first_use,omitempty"`
	Events     []VersionEvent `json:"events,omitempty"`
	Manifest   []byte         `json:"manifest"`
}

// Keep keeps v as a version of id. Keeping a digest already kept updates it.
// Its time and how become the new ones, and the keep is added to its events.
// v.Events is ignored; the store keeps them. The first-use mark and a verdict
// stay, as retention protects them. A verdict given replaces the old one.
// Restorable, once true, stays: its objects are kept while it is. Keeping
// again the version kept last, with nothing new to say, writes nothing. So an
// unchanged scan writes nothing. A partial manifest, or one not matching
// v.Digest, is refused.
func (vs Versions) Keep(id string, v Version) error {
	if !anomaly.IsID(id) || !v.How.valid() || v.Verdict != "" && !verdict.Valid(v.Verdict) {
		return fmt.Errorf("baseline: keeping a version of %s: invalid version", id)
	}
	if v.Manifest.Partial {
		return fmt.Errorf("baseline: keeping a version of %s: a partial manifest is never kept", id)
	}
	if d, err := v.Manifest.Digest(); err != nil || d != v.Digest {
		return fmt.Errorf("baseline: keeping a version of %s: its manifest is not %s", id, v.Digest)
	}
	v.FirstUse = v.FirstUse || v.How == HowFirstUse
	ev := VersionEvent{At: v.At.UTC(), How: v.How}
	if v.How == HowVerdict || v.How == HowAutoAccept {
		ev.Verdict, ev.Reviewer = v.Verdict, SanitizeReviewer(v.Reviewer)
	}
	v.Events = nil
	root, err := vs.t.tx.CreateBucketIfNotExists(bucketVersions)
	if err != nil {
		return err
	}
	b, err := root.CreateBucketIfNotExists([]byte(id))
	if err != nil {
		return err
	}
	if old := b.Get(v.Digest[:]); old != nil {
		prev, err := decodeVersion(old)
		if err != nil {
			return fmt.Errorf("%w: version %s of %s: %v", ErrCorrupt, v.Digest, id, err)
		}
		v.FirstUse = v.FirstUse || prev.FirstUse
		if v.Verdict == "" {
			v.Verdict, v.Reviewer = prev.Verdict, prev.Reviewer
		}
		v.Restorable = v.Restorable || prev.Restorable
		if bytes.Equal(b.Get(keyLatest), v.Digest[:]) && v.How == prev.How && v.Verdict == prev.Verdict &&
			v.Reviewer == prev.Reviewer && v.Restorable == prev.Restorable && v.FirstUse == prev.FirstUse {
			return nil
		}
		v.Events = prev.Events
	}
	if v.How == HowRestored { // the version's verdict applies again
		ev.Verdict, ev.Reviewer = v.Verdict, SanitizeReviewer(v.Reviewer)
	}
	v.Events = append(v.Events, ev)
	v.Events = v.Events[max(0, len(v.Events)-maxVersionEvents):]
	enc, err := v.Manifest.AppendEncoding(nil)
	if err != nil {
		return err
	}
	val, err := json.Marshal(versionJSON{Digest: v.Digest, At: v.At.UTC(), How: v.How, Verdict: v.Verdict,
		Reviewer: SanitizeReviewer(v.Reviewer), Restorable: v.Restorable, FirstUse: v.FirstUse, Events: v.Events, Manifest: enc})
	if err != nil {
		return err
	}
	if err := b.Put(v.Digest[:], val); err != nil {
		return err
	}
	return b.Put(keyLatest, v.Digest[:])
}

// Of returns the kept versions of id, newest first.
func (vs Versions) Of(id string) ([]Version, error) {
	b := vs.t.versions(id)
	if b == nil {
		return nil, nil
	}
	var out []Version
	err := b.ForEach(func(k, val []byte) error {
		if bytes.Equal(k, keyLatest) {
			return nil
		}
		v, err := decodeVersion(val)
		if err != nil || !bytes.Equal(k, v.Digest[:]) {
			return fmt.Errorf("%w: version %x of %s: %v", ErrCorrupt, k, id, err)
		}
		out = append(out, *v)
		return nil
	})
	slices.SortFunc(out, func(a, b Version) int {
		return cmp.Or(b.At.Compare(a.At), bytes.Compare(a.Digest[:], b.Digest[:]))
	})
	return out, err
}

// IDs lists the candidates that have kept versions.
func (vs Versions) IDs() []string {
	root := vs.t.tx.Bucket(bucketVersions)
	if root == nil {
		return nil
	}
	var ids []string
	root.ForEach(func(k, _ []byte) error {
		ids = append(ids, string(k))
		return nil
	})
	return ids
}

// Drop forgets one kept version (retention) as planned, when it was kept at
// planned. Some are kept anyway: one protected, one kept again since the
// plan, one bound to the record's verdict or last review. Its objects become
// collectable when no other version uses them.
func (vs Versions) Drop(id string, d snapshot.Hash, planned time.Time) error {
	b := vs.t.versions(id)
	if b == nil {
		return nil
	}
	val := b.Get(d[:])
	if val == nil {
		return nil
	}
	v, err := decodeVersion(val)
	if err != nil {
		return fmt.Errorf("%w: version %s of %s: %v", ErrCorrupt, d, id, err)
	}
	if v.Protected() || !v.At.Equal(planned) {
		return nil
	}
	rec, err := vs.t.Record(id)
	if err != nil {
		return err
	}
	if rec != nil && (boundTo(rec.Verdict, d) || boundTo(rec.Review, d)) {
		return nil
	}
	if err := b.Delete(d[:]); err != nil {
		return err
	}
	if bytes.Equal(b.Get(keyLatest), d[:]) {
		if err := b.Delete(keyLatest); err != nil {
			return err
		}
	}
	if k, _ := b.Cursor().First(); k == nil {
		return vs.t.tx.Bucket(bucketVersions).DeleteBucket([]byte(id))
	}
	return nil
}

func (t *Tx) versions(id string) *bolt.Bucket {
	root := t.tx.Bucket(bucketVersions)
	if root == nil {
		return nil
	}
	return root.Bucket([]byte(id))
}

// decodeVersion is strict, like records: a damaged version is reported, never
// half-used. Its manifest must match its digest.
func decodeVersion(b []byte) (*Version, error) {
	if len(b) > maxVersion {
		return nil, fmt.Errorf("%w: version too large", errRecord)
	}
	var j versionJSON
	if err := decodeStrict(b, &j); err != nil {
		return nil, err
	}
	if !j.How.valid() || j.Verdict != "" && !verdict.Valid(j.Verdict) {
		return nil, fmt.Errorf("%w: version how/verdict", errRecord)
	}
	m, err := snapshot.Decode(j.Manifest)
	if err != nil {
		return nil, err
	}
	if d, err := m.Digest(); err != nil || d != j.Digest || m.Partial {
		return nil, fmt.Errorf("%w: version manifest does not match its digest", errRecord)
	}
	for _, e := range j.Events {
		if !e.How.valid() || e.Verdict != "" && !verdict.Valid(e.Verdict) {
			return nil, fmt.Errorf("%w: version event how/verdict", errRecord)
		}
	}
	if len(j.Events) == 0 { // kept before events were: its last keep is all that is known
		e := VersionEvent{At: j.At, How: j.How}
		if j.How == HowVerdict || j.How == HowAutoAccept {
			e.Verdict, e.Reviewer = j.Verdict, j.Reviewer
		}
		j.Events = []VersionEvent{e}
	}
	return &Version{Digest: j.Digest, At: j.At, How: j.How, Verdict: j.Verdict, Reviewer: j.Reviewer,
		Restorable: j.Restorable, FirstUse: j.FirstUse || j.How == HowFirstUse, Events: j.Events, Manifest: m}, nil
}

// maxVersion bounds one stored version (its manifest dominates).
const maxVersion = 64 << 20

func boundTo(v *Verdict, d snapshot.Hash) bool { return v != nil && v.Digest != nil && *v.Digest == d }
