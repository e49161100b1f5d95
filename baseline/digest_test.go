package baseline

import (
	"testing"

	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

func TestAPartialObservationHasNoDigest(t *testing.T) {
	whole := &walker.Candidate{Digest: snapshot.Hash{1}}
	partial := &walker.Candidate{Digest: snapshot.Hash{1}, Manifest: snapshot.Manifest{Partial: true}}
	if d := DigestOf(whole); d == nil || *d != whole.Digest {
		t.Errorf("whole: %v", d)
	}
	if d := DigestOf(partial); d != nil {
		t.Errorf("partial: %v, want none", d)
	}
	if d := DigestOf(nil); d != nil {
		t.Errorf("nothing observed: %v, want none", d)
	}
}
