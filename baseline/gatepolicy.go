package baseline

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/skillwire/skillwire/internal/safefile"
)

// The gate's policy (issue #16) lives in the store, so only the person who
// owns the store chooses it. A project cannot. Its names are the gate
// package's; the store only keeps one of them.
const (
	GateAudit    = "audit"
	GateBalanced = "balanced"
	GateStrict   = "strict"
	// GateDefault is the policy of a store where none was chosen.
	GateDefault = GateBalanced
)

// ErrGatePolicy: not one of the three policy names.
var ErrGatePolicy = errors.New("baseline: gate policy must be audit, balanced or strict")

var keyGatePolicy = []byte("gatepolicy")

// GatePolicyFile mirrors the policy beside the store, for the one moment the
// store cannot be read. A locked store must still be answered as the person
// chose. Strict denies, the others answer nothing.
const GatePolicyFile = "gate-policy"

func validGatePolicy(p string) bool { return p == GateAudit || p == GateBalanced || p == GateStrict }

// ErrManagedPolicy: an administrator set the policy in managed
// configuration; the person cannot change it.
var ErrManagedPolicy = errors.New("baseline: the gate policy is set in managed configuration")

// Get is the chosen policy, GateDefault when none was chosen. The
// administrator's (Options.Policy) wins whatever was chosen. A value that is
// not a policy name is a corrupt store, never read as a weaker one.
func (pv Policy) Get() (string, error) {
	if pv.t.s.policy != "" {
		return pv.t.s.policy, nil
	}
	v := pv.t.tx.Bucket(bucketMeta).Get(keyGatePolicy)
	if v == nil {
		return GateDefault, nil
	}
	if !validGatePolicy(string(v)) {
		return "", fmt.Errorf("%w: gate policy", ErrCorrupt)
	}
	return string(v), nil
}

// Set chooses the policy.
func (pv Policy) Set(p string) error {
	if pv.t.s.policy != "" {
		return ErrManagedPolicy
	}
	if !validGatePolicy(p) {
		return ErrGatePolicy
	}
	return pv.t.tx.Bucket(bucketMeta).Put(keyGatePolicy, []byte(p))
}

// SetGatePolicy chooses the policy in the store. It then mirrors it to
// GatePolicyFile in the store's directory dir.
func (s *Store) SetGatePolicy(dir, p string) error {
	if err := s.Update(func(tx *Tx) error { return tx.Policy().Set(p) }); err != nil {
		return err
	}
	return safefile.Write(dir+"/"+GatePolicyFile, []byte(p+"\n"), 0o600, nil)
}

// GatePolicyMirror is the policy mirrored in dir. It is read only when the
// store itself cannot be (locked or busy). The mirror must be a regular file
// of ours, closed to others, like the store. ok is false when there is none
// or it cannot be trusted. The caller then falls back to GateDefault.
func GatePolicyMirror(dir string) (p string, ok bool) {
	b, _, err := safefile.Read(dir+"/"+GatePolicyFile, 16, safefile.Trust{Owner: true, DenyPerm: 0o022})
	if err != nil {
		return "", false
	}
	p = string(bytes.TrimSuffix(b, []byte("\n")))
	return p, validGatePolicy(p)
}
