package findings

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/snapshot"
)

// KindCount is how many findings of one kind there are.
type KindCount struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// Counts counts fs by kind, in Kinds order. A line that says how many
// more of a kind a file held counts as those many.
func Counts(fs []Finding) []KindCount {
	var out []KindCount
	for _, f := range fs {
		n := 1
		if more := 0; f.Line == 0 && f.Kind != Unscanned {
			if _, err := fmt.Sscanf(f.Text, `"%d more in this file"`, &more); err == nil && more > 0 {
				n = more
			}
		}
		out = Sum(out, []KindCount{{f.Kind, n}})
	}
	return out
}

// Sum adds the counts of b to a, in Kinds order.
func Sum(a, b []KindCount) []KindCount {
	for _, k := range b {
		if i := slices.IndexFunc(a, func(s KindCount) bool { return s.Kind == k.Kind }); i >= 0 {
			a[i].Count += k.Count
		} else {
			a = append(a, k)
		}
	}
	slices.SortStableFunc(a, func(x, y KindCount) int { return slices.Index(Kinds, x.Kind) - slices.Index(Kinds, y.Kind) })
	return a
}

// FilesOf are m's regular files with the content get serves; a file not
// served is unread (told as unscanned). A one-file candidate's file is
// named name.
func FilesOf(m *snapshot.Manifest, get func(snapshot.Hash) ([]byte, bool), name []byte) []File {
	var out []File
	for _, e := range m.Entries {
		if e.Kind != snapshot.File {
			continue
		}
		f := File{Path: e.Path, Exec: e.Mode&0o111 != 0, Unread: true}
		if len(e.Path) == 0 {
			f.Path = name
		}
		if get != nil {
			if b, ok := get(e.Hash); ok {
				f.Data, f.Unread = b, false
			}
		}
		out = append(out, f)
	}
	return out
}

// CountsSince counts the findings of cur's files against prev's, a
// candidate's reference (nil: none), both read through get.
func CountsSince(prev, cur *snapshot.Manifest, get func(snapshot.Hash) ([]byte, bool), name []byte) []KindCount {
	var before []File
	if prev != nil {
		before = FilesOf(prev, get, name)
	}
	return Counts(Of(before, FilesOf(cur, get, name)))
}

// CountText is "3 content findings (2 pipe-to-shell, 1 bidi)", "" for
// none. Every word is fixed: no finding's text is in it.
func CountText(ks []KindCount) string {
	total := 0
	parts := make([]string, 0, len(ks))
	for _, k := range ks {
		total += k.Count
		parts = append(parts, fmt.Sprintf("%d %s", k.Count, k.Kind))
	}
	switch total {
	case 0:
		return ""
	case 1:
		return "1 content finding (" + parts[0] + ")"
	}
	return fmt.Sprintf("%d content findings (%s)", total, strings.Join(parts, ", "))
}
