package baseline

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
)

var bucketInstructions = []byte("instructions-changed") // id -> InstructionChange

// InstructionChange is an instruction file Claude Code loaded with bytes that
// differ from its last noted load. It is not yet told to a session. There is
// one per file, the latest load's.
type InstructionChange struct {
	ID string `json:"id"`
	// Name is the file's name as loaded (its last path element). It is
	// attacker bytes, shown only through the display gate.
	Name []byte `json:"name"`
	// Memory is the memory type Claude Code reported, one of its
	// documented values or "unknown".
	Memory string         `json:"memory"`
	At     time.Time      `json:"at"`
	Digest *snapshot.Hash `json:"digest,omitempty"`
}

// Put marks c's file as loaded with changed bytes, until a delivered advisory
// tells it. A later change replaces an untold one.
func (is Instructions) Put(c InstructionChange) error {
	if !anomaly.IsID(c.ID) {
		return fmt.Errorf("%w: instruction change of %q", ErrNote, SanitizeReviewer(c.ID))
	}
	c.Memory = printable(c.Memory, 16)
	b, err := is.t.bucket(bucketInstructions)
	if err != nil {
		return err
	}
	v, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return b.Put([]byte(c.ID), v)
}

// List lists the untold changes, oldest first. An advisory that cannot tell
// them all tells the oldest and holds the rest over.
func (is Instructions) List() ([]InstructionChange, error) {
	b := is.t.tx.Bucket(bucketInstructions)
	if b == nil {
		return nil, nil
	}
	var out []InstructionChange
	err := b.ForEach(func(k, v []byte) error {
		var c InstructionChange
		if err := decodeStrict(v, &c); err != nil || c.ID != string(k) {
			return fmt.Errorf("%w: instruction change", ErrCorrupt)
		}
		out = append(out, c)
		return nil
	})
	slices.SortStableFunc(out, func(a, b InstructionChange) int { return a.At.Compare(b.At) })
	return out, err
}

// Drop consumes the changes a delivered advisory told, each only if it is
// still the one listed. A load changed since stays.
func (is Instructions) Drop(told []InstructionChange) error {
	b := is.t.tx.Bucket(bucketInstructions)
	if b == nil {
		return nil
	}
	for _, c := range told {
		v := b.Get([]byte(c.ID))
		var now InstructionChange
		if v == nil || decodeStrict(v, &now) != nil || !now.At.Equal(c.At) {
			continue
		}
		if err := b.Delete([]byte(c.ID)); err != nil {
			return err
		}
	}
	return nil
}
