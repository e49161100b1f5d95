package baseline

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/skillwire/skillwire/snapshot"
)

// bucketReviewed keeps, per candidate, the manifest its changes are measured
// against. It is the version a person reviewed SAFE (or auto-accepted), else
// its first-use version. Unlike the delivered manifest, it does not move when
// a session is told of a change. So check and reconciliation still see the
// whole change after delivery.
var bucketReviewed = []byte("reviewed-manifests") // id -> how, time, manifest

// How a reference came to be kept.
const (
	RefReview    = "review"    // a SAFE verdict (a person's or auto:SOURCE)
	RefFirstUse  = "first-use" // first delivered observation, no verdict yet
	RefDelivered = "delivered" // a store from before references: the last delivered manifest
)

// refNone marks a candidate first seen after the first run and never
// reviewed. Nothing was vouched for, so all of it is new. Reference then
// returns nil, not the delivered manifest of a store from before references.
const refNone = byte(2)

var refHow = []string{RefReview, RefFirstUse}

// Reference is what a candidate's changes are measured against.
type Reference struct {
	Manifest *snapshot.Manifest
	Digest   snapshot.Hash
	// At is when it was reviewed or observed. Only an audit entry after it
	// can explain a change since.
	At  time.Time
	How string
}

func (t *Tx) putReference(id string, m *snapshot.Manifest, at time.Time, how string) error {
	b, err := t.bucket(bucketReviewed)
	if err != nil {
		return err
	}
	h := byte(0)
	if how == RefFirstUse {
		h = 1
	}
	v := binary.BigEndian.AppendUint64([]byte{h}, uint64(at.UnixNano()))
	if v, err = m.AppendEncoding(v); err != nil {
		return err
	}
	return b.Put([]byte(id), v)
}

// putNoReference marks id as never reviewed nor accepted on first use.
func (t *Tx) putNoReference(id string) error {
	b, err := t.bucket(bucketReviewed)
	if err != nil {
		return err
	}
	return b.Put([]byte(id), []byte{refNone})
}

// Reference returns the reviewed (else first-use) version of id. Else it
// returns its last delivered one (a store from before references), or nil. A
// candidate first seen after the first run and never reviewed SAFE is
// compared with nothing. All of it is added.
func (rs Reviews) Reference(id string) (*Reference, error) {
	if b := rs.t.tx.Bucket(bucketReviewed); b != nil {
		if v := b.Get([]byte(id)); len(v) == 1 && v[0] == refNone {
			return nil, nil
		} else if v != nil {
			r, err := decodeReference(v)
			if err != nil {
				return nil, fmt.Errorf("%w: reference of %s: %v", ErrCorrupt, id, err)
			}
			return r, nil
		}
	}
	m, err := rs.t.Manifest(id)
	if err != nil || m == nil {
		return nil, err
	}
	r, err := rs.t.Record(id)
	if err != nil || r == nil {
		return nil, err
	}
	return refOf(m, r.Observed, RefDelivered)
}

// decodeReference is strict: a damaged reference is reported, never used.
func decodeReference(v []byte) (*Reference, error) {
	if len(v) < 9 || int(v[0]) >= len(refHow) {
		return nil, errors.New("bad header")
	}
	m, err := snapshot.Decode(v[9:])
	if err != nil {
		return nil, err
	}
	return refOf(&m, time.Unix(0, int64(binary.BigEndian.Uint64(v[1:9]))).UTC(), refHow[v[0]])
}

func refOf(m *snapshot.Manifest, at time.Time, how string) (*Reference, error) {
	d, err := m.Digest()
	if err != nil {
		return nil, fmt.Errorf("%w: reference: %v", ErrCorrupt, err)
	}
	return &Reference{Manifest: m, Digest: d, At: at, How: how}, nil
}

func (t *Tx) dropReference(id string) error {
	if b := t.tx.Bucket(bucketReviewed); b != nil {
		return b.Delete([]byte(id))
	}
	return nil
}
