//go:build !linux

package served

import (
	"time"

	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Stamp proves nothing here. Only Linux tells whose ctime a filesystem
// keeps (walker's hash cache is Linux's alone too). So a copy the client
// read is never proven unchanged, and its use is asked.
func Stamp(string, []byte, *snapshot.Manifest, time.Time) (snapshot.Hash, bool, bool) {
	return snapshot.Hash{}, false, false
}

// StampWalked proves nothing here either.
func StampWalked(*walker.Candidate, time.Time) (snapshot.Hash, bool, bool) {
	return snapshot.Hash{}, false, false
}
