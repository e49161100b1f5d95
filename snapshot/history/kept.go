package history

import (
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/content"
)

// Kept is the content store of a state directory, opened once for reading.
// It serves a run that looks content up many times. Absent or untrusted, it
// holds nothing: nothing is known to be kept.
type Kept struct{ cs *content.Store }

// OpenKept opens the content store under stateDir, if it can.
func OpenKept(stateDir string) *Kept {
	cs, err := content.Open(stateDir, content.Options{})
	if err != nil {
		return &Kept{}
	}
	return &Kept{cs: cs}
}

// Has reports whether the content of h is kept.
func (k *Kept) Has(h snapshot.Hash) bool { return k.cs != nil && k.cs.Has(h) }

// Get returns the kept content of h, verified.
func (k *Kept) Get(h snapshot.Hash) ([]byte, bool) {
	if k.cs == nil {
		return nil, false
	}
	b, err := k.cs.Get(h)
	return b, err == nil
}

// Close releases the content store.
func (k *Kept) Close() {
	if k.cs != nil {
		k.cs.Close()
	}
}
