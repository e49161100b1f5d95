package baseline

import (
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// DigestOf is c's digest, nil when c is nil or partial. A partial
// observation has no digest: its bytes were not all read.
func DigestOf(c *walker.Candidate) *snapshot.Hash {
	if c == nil || c.Partial() {
		return nil
	}
	d := c.Digest
	return &d
}
