package provenance

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/skillwire/skillwire/snapshot/findings"
)

// gitTree is the git tree id of the files, as GitHub names a folder:
// blobs of mode 100644 or 100755, trees of 40000, entries in git's order.
func gitTree(files []findings.File) (string, string) {
	root := &tree{kids: map[string]*tree{}}
	for _, f := range files {
		if f.Data == nil {
			return "", fmt.Sprintf("the content of %s was not read", q(string(f.Path)))
		}
		t := root
		parts := strings.Split(string(f.Path), "/")
		for _, d := range parts[:len(parts)-1] {
			if t.kids[d] == nil {
				t.kids[d] = &tree{kids: map[string]*tree{}}
			}
			t = t.kids[d]
		}
		mode := "100644"
		if f.Exec {
			mode = "100755"
		}
		t.blobs = append(t.blobs, blob{name: parts[len(parts)-1], mode: mode, id: object("blob", f.Data)})
	}
	id := root.id()
	return hex.EncodeToString(id[:]), ""
}

type blob struct {
	name, mode string
	id         [20]byte
}

type tree struct {
	blobs []blob
	kids  map[string]*tree
}

func object(kind string, data []byte) [20]byte {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	var id [20]byte
	copy(id[:], h.Sum(nil))
	return id
}

// id orders entries as git does: a tree's name compared as if it ended
// in '/'.
func (t *tree) id() [20]byte {
	type entry struct {
		key, mode, name string
		id              [20]byte
	}
	var es []entry
	for _, b := range t.blobs {
		es = append(es, entry{b.name, b.mode, b.name, b.id})
	}
	for name, k := range t.kids {
		es = append(es, entry{name + "/", "40000", name, k.id()})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].key < es[j].key })
	var body []byte
	for _, e := range es {
		body = append(body, e.mode+" "+e.name+"\x00"...)
		body = append(body, e.id[:]...)
	}
	return object("tree", body)
}
