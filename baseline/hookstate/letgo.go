package hookstate

import (
	"hash/fnv"

	"github.com/skillwire/skillwire/baseline/internal/storefile"
	bolt "go.etcd.io/bbolt"
)

// A session's record is let go past maxSessions later sessions, or after
// sessionTTL (pruneSessions). A long session would then look like one
// never started under skillwire: its served copies judged on the disk
// alone, its added folders and inline plugins forgotten. So each record
// let go marks its session in a filter of fixed size, one per bucket
// (bucket sessions-let-go). A session with no record and its mark is read
// as let go, never as never kept. The filter has no false negatives. It
// never grows: a mark shared with another session only makes that one
// asked more, as if let go too.

var bucketLetGo = []byte("sessions-let-go")

const (
	letGoBits   = 1 << 15 // 4 KiB a bucket
	letGoHashes = 3
)

// letGoAt is the filter bits of session.
func letGoAt(session []byte) [letGoHashes]uint32 {
	h := fnv.New64a()
	h.Write(session)
	sum := h.Sum64()
	h1, h2 := uint32(sum), uint32(sum>>32)|1
	var at [letGoHashes]uint32
	for i := range at {
		at[i] = (h1 + uint32(i)*h2) % letGoBits
	}
	return at
}

// letGo reports whether session's record in bucket was let go. A filter
// of another size (not one skillwire writes) marks every session: what
// was let go is not known.
func letGo(tx *bolt.Tx, bucket []byte, session string) bool {
	b := tx.Bucket(bucketLetGo)
	if b == nil {
		return false
	}
	f := b.Get(bucket)
	if f == nil {
		return false
	}
	if len(f) != letGoBits/8 {
		return true
	}
	for _, i := range letGoAt([]byte(session)) {
		if f[i/8]&(1<<(i%8)) == 0 {
			return false
		}
	}
	return true
}

// markLetGo marks sessions as let go from bucket.
func markLetGo(tx *bolt.Tx, bucket []byte, sessions [][]byte) error {
	if len(sessions) == 0 {
		return nil
	}
	b, err := storefile.Bucket(tx, bucketLetGo)
	if err != nil {
		return err
	}
	f := make([]byte, letGoBits/8)
	if old := b.Get(bucket); len(old) == len(f) {
		copy(f, old)
	} else if old != nil {
		for i := range f {
			f[i] = 0xff // a filter not read marks every session
		}
	}
	for _, s := range sessions {
		for _, i := range letGoAt(s) {
			f[i/8] |= 1 << (i % 8)
		}
	}
	return b.Put(bucket, f)
}
