package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
)

// Errors of reading versions back.
var (
	// ErrNoVersion: no kept version matches a digest or prefix.
	ErrNoVersion = errors.New("no kept version matches")
	// ErrAmbiguous: a digest prefix matches several kept versions.
	ErrAmbiguous = errors.New("the digest prefix matches several kept versions")
)

// MaxLine is the longest line a diff shows; the rest is cut with CutMarker.
const MaxLine = 4 << 10

// CutMarker ends a line that was cut at MaxLine bytes.
const CutMarker = " [line cut at 4 KiB]"

// Content returns the content of a file hash, from a fresh walk's stage or
// the content store. ok is false when it is not kept. err is set when it is
// kept but unusable (corrupt).
type Content func(h snapshot.Hash, size int64) (data []byte, ok bool, err error)

// FileDiff is how one path differs. Every string in it is escaped: paths
// as anomaly.Names.Show shows them, diff text with anomaly.EscapeText.
type FileDiff struct {
	Path    string // anomaly.Names.Show
	RawPath []byte
	Change  snapshot.ChangeType
	Old     *snapshot.Entry // nil when added
	New     *snapshot.Entry // nil when removed
	// Binary: either side is not UTF-8 text, or holds NUL. It is shown by
	// size and hash, no diff.
	Binary bool
	// Unkept: a side's content is not kept, so no diff can be shown.
	Unkept  bool
	Diff    string // unified diff, escaped; "" for binary, unkept or mode-only
	Added   int    // lines
	Deleted int
}

// Diff compares two manifests file by file, with the content of each side
// from old and new. names shows each path: a script a settings file runs,
// by where it lies. A nil names is anomaly.ShowPath. A nil from is nothing,
// a candidate never reviewed. Then every entry is added, and the
// candidate's root itself is not listed. A corrupt object is an error,
// never shown.
func Diff(from, to *snapshot.Manifest, old, new Content, names anomaly.Names) ([]FileDiff, error) {
	var out []FileDiff
	for _, c := range snapshot.Diff(from, to) {
		if from == nil && len(c.Path) == 0 {
			continue
		}
		fd := FileDiff{Path: showPath(names, c.Path), RawPath: c.Path, Change: c.Type, Old: c.Old, New: c.New}
		if c.Type == snapshot.ModeChanged {
			out = append(out, fd)
			continue
		}
		var a, b []byte
		var aok, bok bool = true, true
		var err error
		if c.Old != nil && c.Old.Kind == snapshot.File {
			if a, aok, err = old(c.Old.Hash, c.Old.Size); err != nil {
				return nil, err
			}
		}
		if c.New != nil && c.New.Kind == snapshot.File {
			if b, bok, err = new(c.New.Hash, c.New.Size); err != nil {
				return nil, err
			}
		}
		isFile := func(e *snapshot.Entry) bool { return e == nil || e.Kind == snapshot.File }
		switch {
		case !isFile(c.Old) || !isFile(c.New):
			// A directory, link or anomaly on either side: the change of kind
			// says it. There are no lines to compare.
		case !aok || !bok:
			fd.Unkept = true
		case isBinary(a) || isBinary(b):
			fd.Binary = true
		default:
			fd.Diff, fd.Added, fd.Deleted = unified(fd.Path, a, b, c.Old == nil, c.New == nil)
		}
		out = append(out, fd)
	}
	return out, nil
}

// showPath is names.Show, but the candidate itself is "" where names does
// not show it by where it lies. A file candidate's diff labels are a/ and
// b/.
func showPath(names anomaly.Names, p []byte) string {
	if len(p) == 0 {
		return names[""]
	}
	return names.Show(p)
}

// isBinary: not valid UTF-8, or holding a NUL byte.
func isBinary(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) }

// unified returns the escaped unified diff of a and b, and the lines added
// and deleted. Long lines are cut before diffing, so the diff's own lines
// stay bounded. The labels carry the escaped path.
func unified(path string, a, b []byte, added, removed bool) (string, int, int) {
	from, to := "a/"+path, "b/"+path
	if added {
		from = "/dev/null"
	}
	if removed {
		to = "/dev/null"
	}
	text := udiff.Unified(from, to, cutLines(a), cutLines(b))
	var plus, minus int
	var out strings.Builder
	for i, line := range strings.SplitAfter(text, "\n") {
		if i >= 2 { // past the --- and +++ labels (already escaped)
			switch {
			case strings.HasPrefix(line, "+"):
				plus++
			case strings.HasPrefix(line, "-"):
				minus++
			}
			line = escapeLine(line)
		}
		out.WriteString(line)
	}
	return out.String(), plus, minus
}

// escapeLine escapes one diff line. Escaping may make it longer than
// MaxLine: a control byte is four bytes escaped. Then it is cut after
// escaping, between two escaped runes, with the marker. So what is shown
// stays bounded.
func escapeLine(line string) string {
	esc := anomaly.EscapeText([]byte(line))
	body, nl := strings.CutSuffix(esc, "\n")
	if len(body) <= MaxLine+1+len(CutMarker) { // a diff prefix, a cut line's marker
		return esc
	}
	var out strings.Builder
	for b := []byte(line); len(b) > 0; {
		_, n := utf8.DecodeRune(b)
		piece := anomaly.EscapeText(b[:n])
		if out.Len()+len(piece) > MaxLine {
			break
		}
		out.WriteString(piece)
		b = b[n:]
	}
	out.WriteString(CutMarker)
	if nl {
		out.WriteByte('\n')
	}
	return out.String()
}

// cutLines cuts every line longer than MaxLine, marking it.
func cutLines(b []byte) string {
	var out strings.Builder
	out.Grow(len(b))
	for len(b) > 0 {
		line := b
		rest := []byte(nil)
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, rest = b[:i+1], b[i+1:]
		}
		if body := bytes.TrimSuffix(line, []byte("\n")); len(body) > MaxLine {
			out.Write(body[:MaxLine])
			out.WriteString(CutMarker)
			if len(body) < len(line) {
				out.WriteByte('\n')
			}
		} else {
			out.Write(line)
		}
		b = rest
	}
	return out.String()
}

// Stat sums a diff: files added, removed and modified. Mode changes count
// as modified.
func Stat(ds []FileDiff) (added, removed, modified int) {
	for _, d := range ds {
		switch d.Change {
		case snapshot.Added:
			added++
		case snapshot.Removed:
			removed++
		default:
			modified++
		}
	}
	return
}

// Find returns the version among vs whose digest starts with the hex
// prefix p. "blake3:" is optional, and p has at least 4 hex digits. So p is
// a full digest or a unique prefix.
func Find(vs []baseline.Version, p string) (*baseline.Version, error) {
	p = strings.TrimPrefix(p, "blake3:")
	if len(p) < 4 {
		return nil, fmt.Errorf("%w: a digest prefix needs at least 4 hex digits", ErrNoVersion)
	}
	var found []*baseline.Version
	for i := range vs {
		if strings.HasPrefix(vs[i].Digest.String()[len("blake3:"):], p) {
			found = append(found, &vs[i])
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: %s", ErrNoVersion, anomaly.Escape([]byte(p)))
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("%w: %s", ErrAmbiguous, anomaly.Escape([]byte(p)))
}

// Reviewed is the version a diff starts from and a restore goes back to.
// It is the one carrying the candidate's SAFE verdict: in force, else the
// last review kept across changes. Else it is its first-use version. It is
// nil when the candidate has neither: never reviewed, first seen after
// first use.
func Reviewed(rec *baseline.Record, vs []baseline.Version) *baseline.Version {
	if rec != nil {
		for _, v := range []*baseline.Verdict{rec.Verdict, rec.Review} {
			if v == nil || v.Verdict != verdict.Safe || v.Digest == nil {
				continue
			}
			for i := range vs {
				if vs[i].Digest == *v.Digest {
					return &vs[i]
				}
			}
		}
	}
	for i := range vs {
		if vs[i].FirstUse {
			return &vs[i]
		}
	}
	return nil
}

// Forms serves, before next, the canonical forms of a configuration
// candidate as they are: settings, MCP servers. Its manifest's one file is
// a form's BLAKE3. The form is what the store keeps of it, not the file. A
// restore writes one back.
func Forms(next Content, forms ...[]byte) Content {
	byHash := map[snapshot.Hash][]byte{}
	for _, f := range forms {
		if f != nil {
			byHash[blake3.Sum256(f)] = f
		}
	}
	return func(h snapshot.Hash, size int64) ([]byte, bool, error) {
		if f, ok := byHash[h]; ok {
			return f, true, nil
		}
		return next(h, size)
	}
}

// Canonical serves the forms of a configuration candidate for showing.
// They are those given (Forms), and what next holds of the file entries
// roots. The content store keeps a form too. Each is pretty-printed, keys
// sorted, one per line, so a diff shows the key that changed. Diff escapes
// it like any text.
func Canonical(next Content, roots []snapshot.Hash, forms ...[]byte) Content {
	raw := Forms(next, forms...)
	isForm := map[snapshot.Hash]bool{}
	for _, f := range forms {
		if f != nil {
			isForm[blake3.Sum256(f)] = true
		}
	}
	for _, h := range roots {
		isForm[h] = true
	}
	return func(h snapshot.Hash, size int64) ([]byte, bool, error) {
		b, ok, err := raw(h, size)
		if ok && isForm[h] {
			b = Pretty(b)
		}
		return b, ok, err
	}
}

// Pretty is canonical JSON indented, its object keys sorted, numbers as
// written. What does not parse is returned as it is.
func Pretty(canon []byte) []byte {
	if !json.Valid(canon) {
		return canon
	}
	d := json.NewDecoder(bytes.NewReader(canon))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return canon
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		return canon
	}
	return out.Bytes()
}
