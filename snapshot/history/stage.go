// Package history keeps versions of candidates and reads them back. The
// walker's kept content is staged in memory during a walk. It is written
// to the content store only after delivery, together with the versions
// that use it. It is collected under the retention rules, and compared
// file by file.
package history

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/skillwire/skillwire/snapshot"
)

// DefaultStageBytes bounds what one walk stages in memory. Content past it
// is not kept, and the versions needing it are not restorable.
const DefaultStageBytes = 256 << 20

// Stage holds the content kept during one walk (a walker.Keeper), until
// the versions that use it are written. It is safe for concurrent use. The
// walker's readers keep in parallel, each key in its own shard.
type Stage struct {
	bytes  atomic.Int64
	max    int64
	shards [stageShards]shard
	// known, when set, names content already kept. It is not staged again,
	// so a walk of an unchanged tree copies nothing.
	known func(snapshot.Hash) bool
}

const (
	stageShards = 16
	// slabSize is the allocation that small contents share.
	slabSize = 1 << 20
)

type shard struct {
	mu   sync.Mutex
	m    map[snapshot.Hash][]byte
	slab []byte
}

// NewStage returns a stage bounded by max bytes (0: DefaultStageBytes).
func NewStage(max int64) *Stage {
	if max <= 0 {
		max = DefaultStageBytes
	}
	return &Stage{max: max}
}

// Known reports whether the content of h is kept already (walker.Known). A
// walk that could reuse h's hash reads the file again when it is not.
func (s *Stage) Known(h snapshot.Hash) bool { return s.known != nil && s.known(h) }

// Keep copies data, the bytes the walker hashed into h.
func (s *Stage) Keep(h snapshot.Hash, data []byte) {
	if s.known != nil && s.known(h) {
		return
	}
	sh := &s.shards[h[0]%stageShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.m[h]; ok {
		return
	}
	if s.bytes.Add(int64(len(data))) > s.max {
		s.bytes.Add(-int64(len(data)))
		return
	}
	if sh.m == nil {
		sh.m = make(map[snapshot.Hash][]byte)
	}
	sh.m[h] = sh.copy(data)
}

// copy copies data into the shard's slab, or alone when large; sh.mu is
// held.
func (sh *shard) copy(data []byte) []byte {
	if len(data) > slabSize/8 {
		return bytes.Clone(data)
	}
	if cap(sh.slab)-len(sh.slab) < len(data) {
		sh.slab = make([]byte, 0, slabSize)
	}
	n := len(sh.slab)
	sh.slab = append(sh.slab, data...)
	return sh.slab[n:len(sh.slab):len(sh.slab)]
}

// Get returns the staged content of h.
func (s *Stage) Get(h snapshot.Hash) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	sh := &s.shards[h[0]%stageShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	b, ok := sh.m[h]
	return b, ok
}
