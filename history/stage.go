// Package history keeps versions of candidates and reads them back: the
// content the walker kept during a walk is staged in memory, written to the
// content store only after delivery together with the versions that use
// it, collected under the retention rules, and compared file by file.
package history

import (
	"bytes"
	"sync"

	"github.com/skillwire/skillwire/snapshot"
)

// DefaultStageBytes bounds what one walk stages in memory; content past it
// is not kept, and the versions needing it are not restorable.
const DefaultStageBytes = 256 << 20

// Stage holds the content kept during one walk (a walker.Keeper), until
// the versions that use it are written. Safe for concurrent use.
type Stage struct {
	mu    sync.Mutex
	m     map[snapshot.Hash][]byte
	bytes int64
	max   int64
}

// NewStage returns a stage bounded by max bytes (0: DefaultStageBytes).
func NewStage(max int64) *Stage {
	if max <= 0 {
		max = DefaultStageBytes
	}
	return &Stage{m: make(map[snapshot.Hash][]byte), max: max}
}

// Keep copies data, the bytes the walker hashed into h.
func (s *Stage) Keep(h snapshot.Hash, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[h]; ok || s.bytes+int64(len(data)) > s.max {
		return
	}
	s.m[h] = bytes.Clone(data)
	s.bytes += int64(len(data))
}

// Get returns the staged content of h.
func (s *Stage) Get(h snapshot.Hash) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[h]
	return b, ok
}
