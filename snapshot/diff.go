package snapshot

import "bytes"

// ChangeType is how one path differs between two manifests.
type ChangeType uint8

const (
	Added       ChangeType = iota + 1 // only in the new manifest
	Removed                           // only in the old manifest
	Modified                          // content, kind, link target or anomaly differ
	ModeChanged                       // only the permission bits differ
)

func (t ChangeType) String() string {
	switch t {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Modified:
		return "modified"
	case ModeChanged:
		return "mode"
	}
	return "change(?)"
}

// MarshalText encodes a change type by the name the JSON contract uses.
func (t ChangeType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Change is one path that differs. Old is nil when Added, New when Removed.
type Change struct {
	Path     []byte
	Type     ChangeType
	Old, New *Entry
}

// Diff lists, in path order, every path whose entry differs between old and
// new. A nil manifest is a candidate that is not there. A change of the
// top-level link, its presence or its text, is a modification of the
// candidate itself: path "". Diff compares what it is given. A partial
// manifest lacks entries that exist, so it must never be diffed as if it
// described the tree.
func Diff(old, new *Manifest) []Change {
	var oe, ne []Entry
	if old != nil {
		oe = old.Entries
	}
	if new != nil {
		ne = new.Entries
	}
	relinked := old != nil && new != nil && (old.ViaLink != new.ViaLink || !bytes.Equal(old.Link, new.Link))
	var out []Change
	i, j := 0, 0
	for i < len(oe) || j < len(ne) {
		var c int
		switch {
		case i == len(oe):
			c = 1
		case j == len(ne):
			c = -1
		default:
			c = ComparePaths(oe[i].Path, ne[j].Path)
		}
		switch {
		case c < 0:
			out = append(out, Change{Path: oe[i].Path, Type: Removed, Old: &oe[i]})
			i++
		case c > 0:
			out = append(out, Change{Path: ne[j].Path, Type: Added, New: &ne[j]})
			j++
		default:
			t := compareEntries(&oe[i], &ne[j])
			if t == 0 && relinked && len(ne[j].Path) == 0 {
				t = Modified
			}
			if t != 0 {
				out = append(out, Change{Path: ne[j].Path, Type: t, Old: &oe[i], New: &ne[j]})
			}
			i++
			j++
		}
	}
	return out
}

// compareEntries returns 0 for equal entries of the same path.
func compareEntries(a, b *Entry) ChangeType {
	if a.Kind != b.Kind || a.Size != b.Size || a.Hash != b.Hash || a.Reason != b.Reason ||
		!bytes.Equal(a.Target, b.Target) {
		return Modified
	}
	if a.Mode != b.Mode {
		return ModeChanged
	}
	return 0
}
