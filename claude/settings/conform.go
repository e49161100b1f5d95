package settings

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/internal/safefile"
	"golang.org/x/sys/unix"
)

// A restore puts a reviewed form back into a file a person, or Claude
// Code, keeps editing. It changes as little as it can, member by member.
// So what it leaves alone keeps its order, its spelling and its place. The
// diff it shows is the change and nothing else.

// OpenFile reads the JSON configuration file at path as Open reads a
// settings file. That is .mcp.json, .claude.json or a settings file of
// any scope. It reads a regular file only, never through a link, at most
// max bytes. A missing file is an error wrapping fs.ErrNotExist. A
// restore puts keys back into a file; it never makes one up.
func OpenFile(path string, max int64) (*File, error) {
	d, err := safefile.OpenDir(pathname.Parent(path))
	if err != nil {
		return nil, err
	}
	defer unix.Close(d)
	return OpenFileAt(d, path, max)
}

// OpenFileAt is OpenFile of the file named by path's last component in
// the folder dirfd. The caller opened (and proved) dirfd at path's parent.
// The file is read there, and WriteAt writes only there.
func OpenFileAt(dirfd int, path string, max int64) (*File, error) {
	f := &File{Dir: pathname.Parent(path), Path: path, Mode: 0o600, dirMode: 0o700, max: max}
	if err := f.readIn(dirfd, max, func(b []byte) (*Doc, error) { return parse(b, max) }); err != nil {
		return nil, err
	}
	return f, nil
}

// Bytes are the file's bytes as read.
func (f *File) Bytes() []byte { return f.orig }

// Keys lists the names of the members of the object at path, in order. It
// is nil when there is none there. A duplicate name on the way, or a value
// on the way that is not an object, is ErrShape.
func (s *Doc) Keys(path ...string) ([]string, error) {
	v, err := s.at(path, false)
	if err != nil || v == nil {
		return nil, err
	}
	if v.kind != object {
		return nil, fmt.Errorf("%w: %s is not an object", ErrShape, where(path))
	}
	names := make([]string, len(v.members))
	for i, m := range v.members {
		names[i] = m.name
	}
	return names, nil
}

// Conform makes the member at path mean what the JSON value want means,
// changing as little as it can. Members and elements that already mean
// what want says are kept as written, in their order. A member want lacks
// is removed; one it adds comes last. Objects missing on the way are
// added. Some shapes are ErrShape, and nothing is changed then. One is a
// duplicate name on the way or inside what is conformed: which of the two
// would a reader take? Another is a value on the way that is not an
// object.
func (s *Doc) Conform(path []string, want []byte) error {
	w, err := parseValue(want)
	if err != nil {
		return err
	}
	if len(path) == 0 {
		return fmt.Errorf("%w: the top level is conformed key by key", ErrShape)
	}
	parent, err := s.at(path[:len(path)-1], true)
	if err != nil {
		return err
	}
	if parent.kind != object {
		return fmt.Errorf("%w: %s is not an object", ErrShape, where(path[:len(path)-1]))
	}
	m, err := parent.container1(path[len(path)-1], path)
	if err != nil {
		return err
	}
	if m == nil {
		parent.members = append(parent.members, newMember(path[len(path)-1], w))
		return nil
	}
	if err := checkUnique(m.val, path); err != nil {
		return err
	}
	conform(m.val, w)
	return nil
}

// Delete removes the member at path, if there is one.
func (s *Doc) Delete(path ...string) error {
	if len(path) == 0 {
		return fmt.Errorf("%w: the top level cannot be removed", ErrShape)
	}
	parent, err := s.at(path[:len(path)-1], false)
	if err != nil || parent == nil {
		return err
	}
	if parent.kind != object {
		return fmt.Errorf("%w: %s is not an object", ErrShape, where(path[:len(path)-1]))
	}
	m, err := parent.container1(path[len(path)-1], path)
	if err != nil || m == nil {
		return err
	}
	parent.members = without(parent.members, m)
	return nil
}

// at is the value at path, nil when absent. With add, objects missing on
// the way are added.
func (s *Doc) at(path []string, add bool) (*value, error) {
	v := s.root
	for i, name := range path {
		if v.kind != object {
			return nil, fmt.Errorf("%w: %s is not an object", ErrShape, where(path[:i]))
		}
		m, err := v.container1(name, path[:i+1])
		if err != nil {
			return nil, err
		}
		if m == nil {
			if !add {
				return nil, nil
			}
			v.members = append(v.members, newMember(name, &value{kind: object}))
			m = &v.members[len(v.members)-1]
		}
		v = m.val
	}
	return v, nil
}

// container1 is the one member name of object v, nil when absent.
func (v *value) container1(name string, path []string) (*member, error) {
	var found *member
	for i := range v.members {
		if v.members[i].name == name {
			if found != nil {
				return nil, fmt.Errorf("%w: %s is a duplicate key", ErrShape, where(path))
			}
			found = &v.members[i]
		}
	}
	return found, nil
}

// checkUnique refuses a duplicate name anywhere inside v.
func checkUnique(v *value, path []string) error {
	switch v.kind {
	case object:
		seen := make(map[string]bool, len(v.members))
		for _, m := range v.members {
			if seen[m.name] {
				return fmt.Errorf("%w: %s holds a duplicate key", ErrShape, where(path))
			}
			seen[m.name] = true
			if err := checkUnique(m.val, append(path[:len(path):len(path)], m.name)); err != nil {
				return err
			}
		}
	case array:
		for i, e := range v.elems {
			if err := checkUnique(e, append(path[:len(path):len(path)], strconv.Itoa(i))); err != nil {
				return err
			}
		}
	}
	return nil
}

// where names a path by skillwire's own words only. The file's keys are
// attacker text, so they are counted, never quoted.
func where(path []string) string {
	if len(path) == 0 {
		return "the top level"
	}
	return fmt.Sprintf("a key %d level(s) down", len(path))
}

// conform makes dst mean what want means, in place. dst holds no
// duplicate name.
func conform(dst, want *value) {
	switch {
	case same(dst, want):
	case dst.kind == object && want.kind == object:
		kept := dst.members[:0:0]
		for _, m := range dst.members {
			if w := want.lookup(m.name); w != nil {
				conform(m.val, w.val)
				kept = append(kept, m)
			}
		}
		for _, w := range want.members {
			if dst.lookup(w.name) == nil {
				kept = append(kept, w)
			}
		}
		dst.members = kept
	case dst.kind == array && want.kind == array:
		dst.elems = conformElems(dst.elems, want.elems)
	default:
		*dst = *want
	}
}

// conformElems makes the elements of an array mean want's. An element
// that means want's next one is kept. Those skipped before it, which want
// lacks, are dropped. Else the element in its place is conformed to it,
// unless a later one of want needs it as it is.
func conformElems(have, want []*value) []*value {
	out := make([]*value, 0, len(want))
	k := 0
	for j, w := range want {
		if m := indexSame(have[k:], w); m >= 0 {
			out = append(out, have[k+m])
			k += m + 1
			continue
		}
		if k < len(have) && indexSame(want[j+1:], have[k]) < 0 {
			conform(have[k], w)
			out = append(out, have[k])
			k++
			continue
		}
		out = append(out, w)
	}
	return out
}

func indexSame(vs []*value, v *value) int {
	for i, e := range vs {
		if same(e, v) {
			return i
		}
	}
	return -1
}

// same reports whether a and b mean the same, as the canonical form
// compares them. Objects compare by their members whatever the order,
// taking the last of a repeated name. Arrays compare element by element.
// Strings compare by what they decode to, other scalars by their text.
func same(a, b *value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case object:
		if len(a.members) != len(b.members) {
			return false
		}
		for _, m := range a.members {
			o := b.lookup(m.name)
			if o == nil || !same(a.lookup(m.name).val, o.val) {
				return false
			}
		}
		return true
	case array:
		if len(a.elems) != len(b.elems) {
			return false
		}
		for i := range a.elems {
			if !same(a.elems[i], b.elems[i]) {
				return false
			}
		}
		return true
	}
	sa, aok := a.str()
	sb, bok := b.str()
	if aok || bok {
		return aok && bok && sa == sb
	}
	return bytes.Equal(a.raw, b.raw)
}

// parseValue reads one JSON value, with nothing after it but whitespace.
func parseValue(data []byte) (*value, error) {
	p := newParser(data)
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: more than one value", ErrNotJSON)
	}
	return v, nil
}

// Object is the object at a path of a Doc, indexed once by member name.
// So editing each of its members costs a lookup, not a scan of all of
// them. ~/.claude.json holds one member per project ever opened.
type Object struct {
	v  *value
	at map[string]*value
}

// Object indexes the object at path; nil when there is none there. A
// duplicate name in it or on the way is ErrShape. So is a value that is
// not an object.
func (s *Doc) Object(path ...string) (*Object, error) {
	v, err := s.at(path, false)
	if err != nil || v == nil {
		return nil, err
	}
	if v.kind != object {
		return nil, fmt.Errorf("%w: %s is not an object", ErrShape, where(path))
	}
	o := &Object{v: v, at: make(map[string]*value, len(v.members))}
	for _, m := range v.members {
		if _, dup := o.at[m.name]; dup {
			return nil, fmt.Errorf("%w: %s holds a duplicate key", ErrShape, where(path))
		}
		o.at[m.name] = m.val
	}
	return o, nil
}

// Names are the members' names, in order.
func (o *Object) Names() []string {
	names := make([]string, len(o.v.members))
	for i, m := range o.v.members {
		names[i] = m.name
	}
	return names
}

// Get is the member name as a Doc of its own; edits to it are edits in
// place. nil when there is none.
func (o *Object) Get(name string) *Doc {
	if v := o.at[name]; v != nil {
		return &Doc{root: v}
	}
	return nil
}

// Put is Get, adding an empty object member when there is none.
func (o *Object) Put(name string) *Doc {
	if d := o.Get(name); d != nil {
		return d
	}
	v := &value{kind: object}
	o.v.members = append(o.v.members, newMember(name, v))
	o.at[name] = v
	return &Doc{root: v}
}
