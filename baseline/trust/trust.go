// Package trust keeps the audit-log sources a person trusts for bounded
// auto-accept. It lives only in the store: a project cannot set it. Its
// view is reached from a store transaction (baseline.Tx's Trust).
package trust

import (
	"errors"
	"fmt"
	"slices"

	"github.com/skillwire/skillwire/baseline/internal/storefile"
	bolt "go.etcd.io/bbolt"
)

// ErrSourceName: a trust source must be 1-128 printable ASCII bytes with
// no space, as audit logs spell a source.
var ErrSourceName = errors.New("trust: invalid source name")

// bucketTrust holds the audit-log sources a person trusts for bounded
// auto-accept. It lives only in the store: a project cannot set it.
var bucketTrust = []byte("trust")

// Sources is the trusted sources of a transaction (bucket trust).
type Sources struct{ tx *bolt.Tx }

// Of is the trusted sources of tx.
func Of(tx *bolt.Tx) Sources { return Sources{tx} }

func checkSource(name string) error {
	if len(name) == 0 || len(name) > 128 {
		return fmt.Errorf("%w: length %d", ErrSourceName, len(name))
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= 0x20 || c >= 0x7f {
			return fmt.Errorf("%w: byte %d is not printable ASCII", ErrSourceName, i)
		}
	}
	return nil
}

// Add adds name to the trusted sources.
func (tr Sources) Add(name string) error {
	if err := checkSource(name); err != nil {
		return err
	}
	b, err := storefile.Bucket(tr.tx, bucketTrust)
	if err != nil {
		return err
	}
	return b.Put([]byte(name), []byte{1})
}

// Remove removes name; it reports whether name was trusted.
func (tr Sources) Remove(name string) (bool, error) {
	b := tr.tx.Bucket(bucketTrust)
	if b == nil || b.Get([]byte(name)) == nil {
		return false, nil
	}
	return true, b.Delete([]byte(name))
}

// List lists the trusted sources, sorted.
func (tr Sources) List() ([]string, error) {
	b := tr.tx.Bucket(bucketTrust)
	if b == nil {
		return nil, nil
	}
	var out []string
	err := b.ForEach(func(k, _ []byte) error {
		if checkSource(string(k)) != nil {
			return fmt.Errorf("%w: trust source", storefile.ErrCorrupt)
		}
		out = append(out, string(k))
		return nil
	})
	slices.Sort(out)
	return out, err
}
