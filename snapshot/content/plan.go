package content

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/skillwire/skillwire/snapshot"
)

// Retention defaults.
const (
	EnvMaxBytes         = "SKILLWIRE_MAX_SNAPSHOT_BYTES"
	DefaultMaxBytes     = 512 << 20
	DefaultPerCandidate = 10
)

// ErrMaxBytes is returned for a SKILLWIRE_MAX_SNAPSHOT_BYTES that is not a
// positive decimal number of bytes.
var ErrMaxBytes = errors.New(EnvMaxBytes + " must be a positive decimal number of bytes")

// MaxBytes is the byte cap for the value of SKILLWIRE_MAX_SNAPSHOT_BYTES.
// Empty means DefaultMaxBytes. Anything but a positive decimal integer is
// refused, never silently replaced by the default.
func MaxBytes(env string) (int64, error) {
	if env == "" {
		return DefaultMaxBytes, nil
	}
	n, err := strconv.ParseInt(env, 10, 64)
	if err != nil || n <= 0 || env[0] == '+' {
		return 0, fmt.Errorf("%w: %q", ErrMaxBytes, env)
	}
	return n, nil
}

// VersionRef names one kept version of a candidate.
type VersionRef struct {
	Candidate string        // the candidate's id
	Digest    snapshot.Hash // the version's manifest digest
}

// Object is one content object a version uses and its bytes on disk.
type Object struct {
	Key   snapshot.Hash
	Bytes int64
}

// VersionInfo is what Plan needs to know of one kept version.
type VersionInfo struct {
	Ref  VersionRef
	Kept time.Time // when it was kept: the oldest unprotected goes first
	// Protected: it carries a verdict or the first-use acceptance, and is
	// never dropped.
	Protected bool
	Bytes     int64    // its own bytes (the manifest)
	Objects   []Object // shared: counted once while any kept version uses it
}

// Plan returns the versions to drop, in the order decided:
//  1. of each candidate, an unprotected version older than its newest
//     perCandidate versions. Protected ones count among them.
//  2. then, while the bytes of what remains exceed capBytes, the oldest
//     unprotected version of any candidate. Each object counts once.
//
// Protected versions are never dropped, even over the cap. perCandidate or
// capBytes <= 0 disables its rule. Ties in age break by candidate, then
// digest, so the plan is the same for the same input.
func Plan(versions []VersionInfo, capBytes int64, perCandidate int) []VersionRef {
	seen := make(map[VersionRef]bool, len(versions))
	var vs []*VersionInfo
	for i := range versions {
		if !seen[versions[i].Ref] {
			seen[versions[i].Ref] = true
			vs = append(vs, &versions[i])
		}
	}
	oldestFirst := func(a, b *VersionInfo) int {
		return cmp.Or(a.Kept.Compare(b.Kept), cmp.Compare(a.Ref.Candidate, b.Ref.Candidate),
			slices.Compare(a.Ref.Digest[:], b.Ref.Digest[:]))
	}
	slices.SortFunc(vs, oldestFirst)

	var drop []VersionRef
	dropped := make(map[*VersionInfo]bool)
	if perCandidate > 0 {
		newer := make(map[string]int) // versions of the candidate newer than this one
		for i := len(vs) - 1; i >= 0; i-- {
			v := vs[i]
			if newer[v.Ref.Candidate] >= perCandidate && !v.Protected {
				dropped[v] = true
			}
			newer[v.Ref.Candidate]++
		}
		for _, v := range vs {
			if dropped[v] {
				drop = append(drop, v.Ref)
			}
		}
	}
	if capBytes <= 0 {
		return drop
	}

	users := make(map[snapshot.Hash]int)
	size := make(map[snapshot.Hash]int64)
	var total int64
	for _, v := range vs {
		if dropped[v] {
			continue
		}
		total += v.Bytes
		for _, o := range v.Objects {
			if users[o.Key] == 0 {
				size[o.Key] = o.Bytes
				total += o.Bytes
			}
			users[o.Key]++
		}
	}
	for _, v := range vs {
		if total <= capBytes {
			break
		}
		if dropped[v] || v.Protected {
			continue
		}
		dropped[v] = true
		drop = append(drop, v.Ref)
		total -= v.Bytes
		for _, o := range v.Objects {
			if users[o.Key]--; users[o.Key] == 0 {
				total -= size[o.Key]
			}
		}
	}
	return drop
}
