package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Parse reads a lock strictly. It accepts only versions 1 and 2, and only
// pure ASCII. It accepts exactly the fields that version defines, each once,
// none null. Every name, path and link must be in its one canonical spelling.
// Roots and candidates must be sorted, without duplicates. Every digest must
// equal the digest of the files listed with it. Whitespace is free: a lock
// reformatted or with a verdict added by hand still parses.
func Parse(data []byte) (*Lock, error) {
	if i := bytes.IndexFunc(data, func(r rune) bool { return r >= 0x80 }); i >= 0 {
		return nil, fmt.Errorf("%w: a non-ASCII byte at offset %d", ErrMalformed, i)
	}
	if err := checkVersion(data); err != nil {
		return nil, err
	}
	if err := checkTokens(data); err != nil {
		return nil, err
	}
	var lj lockJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&lj); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if lj.Roots == nil || lj.Candidates == nil {
		return nil, fmt.Errorf("%w: roots and candidates are required", ErrMalformed)
	}
	if (lj.Version == 1) != (lj.Config == nil) {
		return nil, fmt.Errorf("%w: config is required from version 2 on, and unknown to version 1", ErrMalformed)
	}
	l := &Lock{Version: lj.Version, Roots: make([]Root, 0, len(lj.Roots)), Candidates: make([]Candidate, 0, len(lj.Candidates))}
	for i, p := range lj.Roots {
		r, err := ParseRoot(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		if i > 0 && lj.Roots[i-1] >= p {
			return nil, fmt.Errorf("%w: roots out of order or repeated at %s", ErrMalformed, p)
		}
		l.Roots = append(l.Roots, r)
	}
	if lj.Config != nil {
		for i, p := range *lj.Config {
			r, err := ParseConfigDir(p)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
			}
			if i > 0 && (*lj.Config)[i-1] >= p {
				return nil, fmt.Errorf("%w: config out of order or repeated at %s", ErrMalformed, p)
			}
			l.Roots = append(l.Roots, r)
		}
	}
	// One list of roots, by path: a path in both lists is repeated (Validate).
	slices.SortStableFunc(l.Roots, func(a, b Root) int { return strings.Compare(a.Path, b.Path) })
	for i := range lj.Candidates {
		if lj.Version == 1 && lj.Candidates[i].Canonical != nil {
			return nil, fmt.Errorf("candidate %d: %w: canonical is unknown to version 1", i, ErrMalformed)
		}
		c, err := lj.Candidates[i].candidate()
		if err != nil {
			return nil, fmt.Errorf("candidate %d: %w", i, err)
		}
		l.Candidates = append(l.Candidates, c)
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return l, nil
}

// checkVersion reads only the version. So a lock of a later version is
// reported as that, not as unknown fields.
func checkVersion(data []byte) error {
	var peek struct {
		Version json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(data, &peek); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	switch v := string(peek.Version); v {
	case "1", "2":
		return nil
	case "":
		return fmt.Errorf("%w: no version", ErrVersion)
	default:
		if len(v) > 20 {
			v = v[:20] + "..."
		}
		return fmt.Errorf("%w %s (this skillwire reads versions 1 to %d)", ErrVersion, anomaly.QuoteBytes([]byte(v)), Version)
	}
}

// checkTokens rejects what encoding/json would silently accept. That is a key
// given twice (the last would win), or a key in another case (it matches
// case-insensitively). It is also a null (it reads as absent) and trailing
// data.
func checkTokens(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := walkValue(dec); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the lock", ErrMalformed)
	}
	return nil
}

// walkValue recurses once per level of nesting; the decoder itself
// refuses nesting deeper than 10,000.
func walkValue(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := t.(type) {
	case nil:
		return errors.New("null is not a lock value")
	case json.Delim:
		switch t {
		case '{':
			keys := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				if !lowerKey(k) {
					return fmt.Errorf("key %s: not a lock field", anomaly.QuoteBytes([]byte(k)))
				}
				if keys[k] {
					return fmt.Errorf("key %q given twice", k)
				}
				keys[k] = true
				if err := walkValue(dec); err != nil {
					return err
				}
			}
		case '[':
			for dec.More() {
				if err := walkValue(dec); err != nil {
					return err
				}
			}
		}
		_, err := dec.Token() // the closing delimiter
		return err
	}
	return nil
}

func lowerKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !('a' <= c && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

func (cj *candidateJSON) candidate() (Candidate, error) {
	c := Candidate{Root: cj.Root}
	var err error
	if c.Name, err = cj.name(); err != nil {
		return c, err
	}
	switch cj.Kind {
	case "dir":
		c.Kind = walker.KindDir
	case "file":
		c.Kind = walker.KindFile
	default:
		return c, fmt.Errorf("%w: kind must be dir or file", ErrMalformed)
	}
	if cj.Link != nil || cj.LinkHex != nil {
		c.Manifest.ViaLink = true
		if c.Manifest.Link, err = decodeBytes("link", cj.Link, cj.LinkHex, plainLink); err != nil {
			return c, err
		}
	}
	if c.Digest, err = snapshot.ParseHash(cj.Digest); err != nil {
		return c, fmt.Errorf("%w: digest: %v", ErrMalformed, err)
	}
	if cj.Verdict != nil {
		c.Verdict = Verdict(*cj.Verdict)
		if c.Verdict == None || !c.Verdict.valid() {
			return c, fmt.Errorf("%w: verdict must be SAFE-TO-PROPOSE, SUSPECT or BLOCK", ErrMalformed)
		}
	}
	if cj.Canonical != nil {
		c.Canonical = []byte(*cj.Canonical)
	}
	if cj.Files == nil {
		return c, fmt.Errorf("%w: files are required", ErrMalformed)
	}
	c.Manifest.Entries = make([]snapshot.Entry, len(cj.Files))
	for i := range cj.Files {
		if err := cj.Files[i].entry(&c.Manifest.Entries[i]); err != nil {
			return c, fmt.Errorf("file %d: %w", i, err)
		}
	}
	return c, nil
}

func (ej *entryJSON) entry(e *snapshot.Entry) error {
	p, err := decodeBytes("path", ej.Path, ej.PathHex, plainPath)
	if err != nil {
		return err
	}
	e.Path = p
	var ok bool
	if e.Mode, ok = parseMode(ej.Mode); !ok {
		return fmt.Errorf("%w: mode must be four octal digits", ErrMalformed)
	}
	switch ej.Kind {
	case "dir":
		e.Kind = snapshot.Dir
		if ej.Size != nil || ej.Hash != nil {
			return fmt.Errorf("%w: a dir has no size or hash", ErrMalformed)
		}
	case "file":
		e.Kind = snapshot.File
		if ej.Size == nil || ej.Hash == nil {
			return fmt.Errorf("%w: a file needs a size and a hash", ErrMalformed)
		}
		if e.Size = *ej.Size; e.Size < 0 {
			return fmt.Errorf("%w: negative size", ErrMalformed)
		}
		if e.Hash, err = snapshot.ParseHash(*ej.Hash); err != nil {
			return fmt.Errorf("%w: hash: %v", ErrMalformed, err)
		}
	default:
		// Links and anomalies make a candidate anomalous, and an
		// anomalous candidate is never locked.
		return fmt.Errorf("%w: kind must be dir or file", ErrMalformed)
	}
	return nil
}

// decodeBytes takes exactly one of the plain and the hex spelling. It takes
// only the one Marshal would have written for the bytes it names.
// name decodes the candidate's name. A dot name may be spelled either way:
// name_hex as in a lock written before it was plain, else name.
func (cj *candidateJSON) name() ([]byte, error) {
	if cj.Name == nil && cj.NameHex != nil {
		if b, ok := decodeHex(*cj.NameHex); ok && dotName(cj.Root, b) {
			return b, nil
		}
	}
	return decodeBytes("name", cj.Name, cj.NameHex, func(n []byte) bool { return plainName(cj.Root, n) })
}

func decodeBytes(field string, plain, hexed *string, isPlain func([]byte) bool) ([]byte, error) {
	switch {
	case plain != nil && hexed != nil:
		return nil, fmt.Errorf("%w: both %s and %s_hex", ErrMalformed, field, field)
	case plain != nil:
		b := []byte(*plain)
		if !isPlain(b) {
			return nil, fmt.Errorf("%w: %s %s must be spelled as %s_hex", ErrMalformed, field, anomaly.QuoteBytes([]byte(*plain)), field)
		}
		return b, nil
	case hexed != nil:
		b, ok := decodeHex(*hexed)
		if !ok || len(b) == 0 {
			return nil, fmt.Errorf("%w: %s_hex must be non-empty lowercase hex", ErrMalformed, field)
		}
		if isPlain(b) {
			return nil, fmt.Errorf("%w: %s_hex %s must be spelled as %s", ErrMalformed, field, *hexed, field)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%w: %s or %s_hex is required", ErrMalformed, field, field)
}
