package baseline

import (
	"bytes"

	"github.com/skillwire/skillwire/baseline/cache"
)

// bucketExtracts keeps, per candidate id, the canonical form of the
// configuration last delivered (walker.Candidate.Canonical). The next
// session's facts ("new SessionStart hook runs …") are told against it.
var bucketExtracts = []byte("extracts")

// bucketReviewedExtracts keeps, per candidate id, the canonical form a person
// reviewed SAFE. A pending change's facts are told against it, in every
// session until it is reviewed.
var bucketReviewedExtracts = []byte("reviewed-extracts")

// maxExtract bounds a kept canonical form. It is the bound of a cached one
// (cache.MaxCanonical), so what the cache keeps can be delivered.
const maxExtract = cache.MaxCanonical

// Extract is the canonical form last delivered for id. It is nil when none
// was kept: not a configuration file, or never delivered.
func (t *Tx) Extract(id string) []byte { return t.getExtract(bucketExtracts, id) }

// ReviewedExtract is the canonical form of id's SAFE review; nil when none
// was kept.
func (t *Tx) ReviewedExtract(id string) []byte { return t.getExtract(bucketReviewedExtracts, id) }

func (t *Tx) getExtract(bucket []byte, id string) []byte {
	b := t.tx.Bucket(bucket)
	if b == nil {
		return nil
	}
	return bytes.Clone(b.Get([]byte(id)))
}

// putExtract keeps canon as id's delivered form; nil (or one too large to
// keep) drops it.
func (t *Tx) putExtract(id string, canon []byte) error {
	return t.setExtract(bucketExtracts, id, canon)
}

func (t *Tx) setExtract(bucket []byte, id string, canon []byte) error {
	b, err := t.bucket(bucket)
	if err != nil {
		return err
	}
	if canon == nil || len(canon) > maxExtract {
		return b.Delete([]byte(id))
	}
	return b.Put([]byte(id), canon)
}
