// Package snapshot defines the manifest of one candidate, its sorted
// entries. It also defines the manifest's canonical byte encoding and
// digest.
//
// The digest covers content, modes, link targets and anomalies. It never
// covers timestamps, inode numbers or owners. So the same tree gives the
// same digest on any machine, and a touch alone changes nothing.
package snapshot

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
)

// Version is the manifest encoding version. It is bound into every digest
// through the derive-key context. So a change of encoding or policy shows
// as a changed digest, never as a silent match.
const Version = 1

// digestContext is the BLAKE3 derive-key context for manifest digests.
const digestContext = "skillwire 2026-11-29 manifest v1"

// Kind is the type of a manifest entry. The numeric values are part of the
// encoding: never renumber, only append.
type Kind uint8

const (
	Dir     Kind = 1 // a directory: Mode
	File    Kind = 2 // a regular file: Size, Mode, Hash
	Symlink Kind = 3 // a symbolic link, never followed: Target
	Anomaly Kind = 4 // something not observable as content: Reason
)

func (k Kind) String() string {
	switch k {
	case Dir:
		return "dir"
	case File:
		return "file"
	case Symlink:
		return "symlink"
	case Anomaly:
		return "anomaly"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Entry is one observed path of a candidate.
type Entry struct {
	// Path is relative to the candidate, components joined by '/', raw
	// bytes (a newline or a non-UTF-8 byte is data). "" is the candidate.
	Path   []byte
	Kind   Kind
	Mode   uint32 // Dir, File: permission bits, mode & 07777
	Size   int64  // File
	Hash   Hash   // File: BLAKE3-256 of the content
	Target []byte // Symlink: the link text, as read
	Reason anomaly.Reason
}

// Manifest is everything observed of one candidate.
type Manifest struct {
	// ViaLink is set when the candidate is a top-level symbolic link that
	// was observed through. Link is then its text, bound into the digest. So
	// retargeting the link changes the digest even when both targets match.
	ViaLink bool
	Link    []byte
	// Entries are sorted by ComparePaths, paths unique.
	Entries []Entry
	// Partial means the scan budget ran out before the candidate was fully
	// observed. The digest then describes the scan, not the tree.
	Partial bool
}

// Hash is a BLAKE3-256 value. It prints algorithm-tagged, "blake3:<hex>",
// so anyone can check a file with b3sum.
type Hash [32]byte

const hashPrefix = "blake3:"

func (h Hash) String() string { return hashPrefix + hex.EncodeToString(h[:]) }

// MarshalText implements encoding.TextMarshaler.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (h *Hash) UnmarshalText(b []byte) error {
	p, err := ParseHash(string(b))
	if err != nil {
		return err
	}
	*h = p
	return nil
}

// ErrHashSyntax is returned for a string that is not "blake3:" and 64
// lowercase hex digits.
var ErrHashSyntax = errors.New(`snapshot: want "blake3:" and 64 lowercase hex digits`)

// ParseHash parses the output of Hash.String exactly: no other case, no
// whitespace, no missing tag.
func ParseHash(s string) (Hash, error) {
	var h Hash
	rest, ok := strings.CutPrefix(s, hashPrefix)
	if !ok || len(rest) != 64 || strings.ToLower(rest) != rest {
		return h, ErrHashSyntax
	}
	if _, err := hex.Decode(h[:], []byte(rest)); err != nil {
		return h, ErrHashSyntax
	}
	return h, nil
}

// ComparePaths orders entry paths component by component, as a depth-first
// walk with sorted siblings visits them. '/' sorts before every other byte.
// So "a/x" < "a.b", and a directory's contents follow it directly.
func ComparePaths(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return -1
		}
		if cb == '/' {
			return 1
		}
		if ca < cb {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}

// Anomalies lists the anomalous entries of m with their reasons, in entry
// order. They are anomaly entries and symlink entries: a nested link is
// itself an anomaly. A partial manifest adds Budget at the candidate.
func (m *Manifest) Anomalies() []Found {
	var out []Found
	for i := range m.Entries {
		e := &m.Entries[i]
		switch e.Kind {
		case Anomaly:
			out = append(out, Found{Reason: e.Reason, Path: e.Path})
		case Symlink:
			out = append(out, Found{Reason: anomaly.Symlink, Path: e.Path})
		}
	}
	if m.Partial {
		out = append(out, Found{Reason: anomaly.Budget, Path: nil})
	}
	return out
}

// Found is one anomaly of a manifest: why, and where. Where is raw path
// bytes: show them only through anomaly.PathLabel.
type Found struct {
	Reason anomaly.Reason
	Path   []byte
}

// Equal reports whether two manifests are identical.
func (m *Manifest) Equal(o *Manifest) bool {
	if m.ViaLink != o.ViaLink || m.Partial != o.Partial || !bytes.Equal(m.Link, o.Link) || len(m.Entries) != len(o.Entries) {
		return false
	}
	for i := range m.Entries {
		a, b := &m.Entries[i], &o.Entries[i]
		if a.Kind != b.Kind || a.Mode != b.Mode || a.Size != b.Size || a.Hash != b.Hash ||
			a.Reason != b.Reason || !bytes.Equal(a.Path, b.Path) || !bytes.Equal(a.Target, b.Target) {
			return false
		}
	}
	return true
}
