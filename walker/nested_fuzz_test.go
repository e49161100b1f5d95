package walker

import (
	"bytes"
	"testing"

	"github.com/skillwire/skillwire/snapshot"
)

// FuzzInnerLink: a link judged inner resolves, read lexically from its own
// directory, to a path that never climbs above the candidate.
func FuzzInnerLink(f *testing.F) {
	for _, s := range [][2]string{{"a/b/l", "../x"}, {"l", "../x"}, {"a/l", "b/../../y"}, {"a/l", "./../x"}, {"l", "/etc"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, path, target string) {
		if path == "" || target == "" || !validFuzzPath(path) {
			return
		}
		c := Candidate{Manifest: snapshot.Manifest{Entries: []snapshot.Entry{{Path: []byte(path), Kind: snapshot.Symlink, Target: []byte(target)}}}}
		if !c.innerLink([]byte(path)) {
			return
		}
		depth := bytes.Count([]byte(path), []byte{'/'})
		for comp := range bytes.SplitSeq([]byte(target), []byte{'/'}) {
			switch string(comp) {
			case "..":
				depth--
			case "", ".":
			default:
				depth++
			}
			if depth < 0 {
				t.Fatalf("%q -> %q judged inner, climbs out", path, target)
			}
		}
	})
}

func validFuzzPath(p string) bool {
	for comp := range bytes.SplitSeq([]byte(p), []byte{'/'}) {
		if len(comp) == 0 || string(comp) == "." || string(comp) == ".." || bytes.IndexByte(comp, 0) >= 0 {
			return false
		}
	}
	return true
}
