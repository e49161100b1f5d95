// Package jsonread reads a JSON configuration document under bounds. It
// builds only the values a caller keeps and notes duplicate keys.
// Reader builds values through encoding/json; Scanner passes over raw
// bytes for the large documents where little is kept.
package jsonread

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// MaxDepth bounds the nesting of a kept value. Real settings nest about 6 deep.
const MaxDepth = 64

// ErrDepth stops a walk nested past MaxDepth.
var ErrDepth = errors.New("nested too deep")

// Reader walks one JSON document token by token.
type Reader struct {
	dec *json.Decoder
	Dup bool // a key was given twice in some object
}

// NewReader reads data. Numbers are kept as written (json.Number).
func NewReader(data []byte) *Reader {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return &Reader{dec: dec}
}

// skipValue is decoded into to pass over a value without building it. The
// decoder still checks its syntax, and nothing is copied.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

// Skip passes over the next value.
func (r *Reader) Skip() error { return r.dec.Decode(&skipValue{}) }

// Value builds the next value as map[string]any, []any, string,
// json.Number, bool or nil. A repeated key keeps its last value, as
// JSON.parse does. depth is the nesting the value starts at.
func (r *Reader) Value(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, ErrDepth
	}
	tok, err := r.dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for r.dec.More() {
			k, err := r.key()
			if err != nil {
				return nil, err
			}
			v, err := r.Value(depth + 1)
			if err != nil {
				return nil, err
			}
			if _, ok := m[k]; ok {
				r.Dup = true
			}
			m[k] = v
		}
		_, err := r.dec.Token()
		return m, err
	case json.Delim('['):
		a := []any{}
		for r.dec.More() {
			v, err := r.Value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := r.dec.Token()
		return a, err
	}
	return tok, nil
}

func (r *Reader) key() (string, error) {
	tok, err := r.dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := tok.(string)
	if !ok {
		return "", errors.New("object key is not a string")
	}
	return k, nil
}

// Object walks the members of the object that comes next. It calls member
// with each key; member must consume the value.
func (r *Reader) Object(member func(key string) error) error {
	tok, err := r.dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return errors.New("not an object")
	}
	seen := map[string]bool{}
	for r.dec.More() {
		k, err := r.key()
		if err != nil {
			return err
		}
		if seen[k] {
			r.Dup = true
		}
		seen[k] = true
		if err := member(k); err != nil {
			return err
		}
	}
	_, err = r.dec.Token()
	return err
}

// End requires that nothing but whitespace follows the document.
func (r *Reader) End() error {
	if _, err := r.dec.Token(); err != io.EOF {
		return errors.New("data after the top-level object")
	}
	return nil
}

var errSyntax = errors.New("not a JSON object")

// Scanner walks the few levels of a document that lead to the kept
// values, over raw bytes. Kept values are read by a Reader in full.
type Scanner struct {
	data []byte
	i    int
	Dup  bool // a key was given twice in some object
}

// NewScanner scans data.
func NewScanner(data []byte) *Scanner { return &Scanner{data: data} }

// Top scans the whole document as one object, with nothing after it.
func (s *Scanner) Top(member func(key string) error) error {
	if err := s.Object(member); err != nil {
		return err
	}
	s.space()
	if s.i != len(s.data) {
		return errors.New("data after the top-level object")
	}
	return nil
}

func (s *Scanner) space() {
	for s.i < len(s.data) && strings.IndexByte(" \t\r\n", s.data[s.i]) >= 0 {
		s.i++
	}
}

// AtObject reports whether the next value is an object.
func (s *Scanner) AtObject() bool {
	s.space()
	return s.i < len(s.data) && s.data[s.i] == '{'
}

// Object walks the members of the object that comes next. member must
// consume the value.
func (s *Scanner) Object(member func(key string) error) error {
	s.space()
	if s.i == len(s.data) || s.data[s.i] != '{' {
		return errSyntax
	}
	s.i++
	seen := map[string]bool{}
	for first := true; ; first = false {
		s.space()
		if s.i < len(s.data) && s.data[s.i] == '}' && first {
			s.i++
			return nil
		}
		start := s.i
		if !s.skipString() {
			return errSyntax
		}
		raw := s.data[start+1 : s.i-1]
		k := string(raw)
		if bytes.IndexByte(raw, '\\') >= 0 {
			if err := json.Unmarshal(s.data[start:s.i], &k); err != nil {
				return errSyntax
			}
		}
		s.space()
		if s.i == len(s.data) || s.data[s.i] != ':' {
			return errSyntax
		}
		s.i++
		if seen[k] {
			s.Dup = true
		}
		seen[k] = true
		if err := member(k); err != nil {
			return err
		}
		s.space()
		if s.i == len(s.data) {
			return errSyntax
		}
		s.i++
		switch s.data[s.i-1] {
		case '}':
			return nil
		case ',':
			continue
		}
		return errSyntax
	}
}

// Keep reads the next value in full into kept[name]: its syntax,
// duplicate keys and depth. depth is the nesting it starts at.
func (s *Scanner) Keep(kept map[string]any, name string, depth int) error {
	s.space()
	start := s.i
	if err := s.Skip(); err != nil {
		return err
	}
	r := NewReader(s.data[start:s.i])
	v, err := r.Value(depth)
	if err == nil {
		err = r.End()
	}
	s.Dup = s.Dup || r.Dup
	kept[name] = v
	return err
}

// EmptyObject passes over the next value if it is `{}`, with any
// whitespace inside. Otherwise it stays where it is. Most values so
// need no decoder.
func (s *Scanner) EmptyObject() bool {
	s.space()
	start := s.i
	if s.Skip() == nil && emptyObject(s.data[start:s.i]) {
		return true
	}
	s.i = start
	return false
}

func emptyObject(b []byte) bool {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return false
	}
	for _, c := range b[1 : len(b)-1] {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// skipString passes over the string that starts at s.i, quotes included.
func (s *Scanner) skipString() bool {
	if s.i == len(s.data) || s.data[s.i] != '"' {
		return false
	}
	j := s.i + 1
	for {
		k := bytes.IndexByte(s.data[j:], '"')
		if k < 0 {
			return false
		}
		j += k
		n := 0
		for p := j - 1; s.data[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			s.i = j + 1
			return true
		}
		j++
	}
}

// maxSkipDepth bounds the nesting of a skipped value, as encoding/json does.
const maxSkipDepth = 10000

// Skip passes over one value. It checks that strings end and brackets match.
func (s *Scanner) Skip() error {
	s.space()
	if s.i == len(s.data) {
		return errSyntax
	}
	switch s.data[s.i] {
	case '"':
		if !s.skipString() {
			return errSyntax
		}
		return nil
	case '{', '[':
		var open []byte
		for s.i < len(s.data) {
			switch c := s.data[s.i]; c {
			case '"':
				if !s.skipString() {
					return errSyntax
				}
				continue
			case '{', '[':
				if open = append(open, c); len(open) > maxSkipDepth {
					return ErrDepth
				}
			case '}', ']':
				if len(open) == 0 || open[len(open)-1] != c-2 {
					return errSyntax
				}
				if open = open[:len(open)-1]; len(open) == 0 {
					s.i++
					return nil
				}
			}
			s.i++
		}
		return errSyntax
	}
	start := s.i
	for s.i < len(s.data) && strings.IndexByte(",}] \t\r\n", s.data[s.i]) < 0 {
		s.i++
	}
	if s.i == start {
		return errSyntax
	}
	return nil
}
