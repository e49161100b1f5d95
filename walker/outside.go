package walker

import (
	"slices"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
)

// bindOutside observes the files NameSpec.Outside named for the candidate
// name as bind does. With NameSpec.OutsideExtract, each file read whole is
// bound by the form it makes of the very bytes hashed. That form is kept:
// a diff shows it, a restore compares it. It is read as a front file of
// the candidate.
func (w *cwalk) bindOutside(name []byte, paths []string) []snapshot.Entry {
	if w.spec.OutsideExtract == nil {
		return w.bind(paths)
	}
	var ents []snapshot.Entry
	for i, p := range slices.Compact(slices.Sorted(slices.Values(paths))) {
		if i == MaxScripts {
			ents = append(ents, anomalyEntry([]byte(ScriptsPath), anomaly.Fanout))
			break
		}
		if !w.take() {
			break
		}
		var data []byte
		got := w.script(p, &data)
		for j := range got {
			if got[j].Kind != snapshot.File || data == nil {
				continue
			}
			canon, ok := w.spec.OutsideExtract(name, p, data)
			if !ok {
				continue
			}
			sum := blake3.Sum256(canon)
			got[j].Hash, got[j].Size = sum, int64(len(canon))
			if keep := w.s.cfg.Keep; keep != nil && int64(len(canon)) <= w.s.keepMax {
				keep.Keep(sum, canon)
			}
			w.front = append(w.front, &frontRead{path: got[j].Path, hash: sum, canon: canon})
		}
		ents = append(ents, got...)
	}
	slices.SortFunc(ents, func(a, b snapshot.Entry) int { return snapshot.ComparePaths(a.Path, b.Path) })
	return ents
}
