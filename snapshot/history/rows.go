package history

import (
	"bytes"
	"cmp"
	"slices"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/snapshot"
)

// Row is one event of a candidate's history: a version kept at a time, in
// a way. The way is first use, session, daemon, verdict by whom,
// auto-accept, restored or displaced. It counts the files added, removed
// and modified since the row before it in time.
type Row struct {
	Version                  *baseline.Version
	At                       time.Time
	How                      baseline.How
	Verdict, Reviewer        string
	Added, Removed, Modified int
	// Files are the changes counted, in manifest order.
	Files []snapshot.Change
}

// Rows lists every event of the kept versions vs, newest first. Each event
// keeps its own time. So a version kept again, a restore of a reviewed
// version, shows every way it came to be. A row's counts are against the
// manifest of the row just older; the oldest has none. Directories are not
// counted: the files in them are.
func Rows(vs []baseline.Version) []Row {
	var rows []Row
	for i := range vs {
		for _, e := range vs[i].Events {
			rows = append(rows, Row{Version: &vs[i], At: e.At, How: e.How, Verdict: e.Verdict, Reviewer: e.Reviewer})
		}
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		return cmp.Or(b.At.Compare(a.At), bytes.Compare(a.Version.Digest[:], b.Version.Digest[:]))
	})
	for i := range rows {
		var prev *snapshot.Manifest
		if i+1 < len(rows) {
			prev = &rows[i+1].Version.Manifest
		}
		r := &rows[i]
		for _, c := range snapshot.Diff(prev, &r.Version.Manifest) {
			if c.Old != nil && c.Old.Kind == snapshot.Dir || c.New != nil && c.New.Kind == snapshot.Dir {
				continue
			}
			r.Files = append(r.Files, c)
			switch c.Type {
			case snapshot.Added:
				r.Added++
			case snapshot.Removed:
				r.Removed++
			default:
				r.Modified++
			}
		}
	}
	return rows
}
