// Package workflow is what Claude Code (2.1.328) reads of a workflow
// script to name it. That is the meta block's name, read as the client's
// own fast reader reads it. It also holds the names of the client's
// built-in workflows. A workflow is named by its meta.name, not by its
// file (docs/claude-code.md).
package workflow

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxSize is the largest script the client lists. A bigger file is
// skipped ("exceeds 524288 bytes").
const MaxSize = 512 << 10

// Builtins are the client's own workflows, which no file provides. The
// pinned client lists them when a name is unknown ("Available: …"). The
// e2e case TestAWorkflowOfNoFileIsOneOfTheClientsOwn pins them. A project
// or user file of the same meta name replaces one. It is then judged as
// that file.
var Builtins = []string{"deep-research"}

// Builtin reports whether name is one of Builtins.
func Builtin(name string) bool {
	for _, b := range Builtins {
		if b == name {
			return true
		}
	}
	return false
}

// maxDepth bounds the nesting of meta's literals. Deeper is unreadable.
const maxDepth = 32

// Name is the meta.name of the workflow script src, as the client reads
// it when it lists workflows. The script opens with `export const meta =
// {…}`, after blanks and comments. The literal holds strings, numbers,
// booleans, null, arrays and objects. Its last "name" and "description"
// are non-empty strings. The statement ends there. ok is false for every
// other shape. The client may still read a name from it, since its full
// JavaScript parser takes over. So the name is unknown, never "none".
func Name(src []byte) (name string, ok bool) {
	if len(src) > MaxSize || !utf8.Valid(src) {
		return "", false
	}
	s := strings.ReplaceAll(string(src), "\r\n", "\n")
	p := &reader{s: s}
	p.blank()
	for _, w := range []string{"export", "const", "meta"} {
		if !strings.HasPrefix(p.s[p.i:], w) {
			return "", false
		}
		p.i += len(w)
		n := p.i
		if p.spaces(); w != "meta" && p.i == n {
			return "", false // `exportconst` is no statement
		}
	}
	if !p.eat('=') {
		return "", false
	}
	p.spaces()
	if p.peek() != '{' {
		return "", false
	}
	meta, err := p.value(0)
	m, isObj := meta.(map[string]any)
	if err != nil || !isObj || !p.ends() {
		return "", false
	}
	n, _ := m["name"].(string)
	d, _ := m["description"].(string)
	if n == "" || d == "" {
		return "", false
	}
	return n, true
}

type reader struct {
	s string
	i int
}

// errShape: the text is no literal the client's fast reader reads.
var errShape = errors.New("workflow: not a literal the client reads")

func (p *reader) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *reader) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// spaces skips ASCII blanks only. Any other blank the client's \s takes
// makes the script unreadable here, never read otherwise.
func (p *reader) spaces() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r\v\f", p.s[p.i]) >= 0 {
		p.i++
	}
}

// blank skips blanks and comments, as the client's reader does between
// tokens. It reports whether a line ended within them.
func (p *reader) blank() (newline bool) {
	for {
		start := p.i
		p.spaces()
		newline = newline || strings.ContainsAny(p.s[start:p.i], "\n\r")
		switch {
		case strings.HasPrefix(p.s[p.i:], "//"):
			end := strings.IndexAny(p.s[p.i:], "\n\r\u2028\u2029")
			if end < 0 {
				p.i = len(p.s)
				return newline
			}
			p.i += end
		case strings.HasPrefix(p.s[p.i:], "/*"):
			end := strings.Index(p.s[p.i+2:], "*/")
			if end < 0 {
				return newline // the client's reader stops before it too
			}
			newline = newline || strings.ContainsAny(p.s[p.i:p.i+2+end], "\n\r\u2028\u2029")
			p.i += 2 + end + 2
		default:
			return newline
		}
	}
}

// ends reports whether the meta statement ends where the literal did. It
// ends at a ';' or the end of the script. It ends at a line break before a
// word that cannot continue the expression.
func (p *reader) ends() bool {
	start := p.i
	newline := p.blank()
	switch {
	case p.peek() == ';', p.i >= len(p.s):
		return true
	case !newline:
		return false
	}
	w := p.word()
	p.i = start
	return w != "" && w != "in" && w != "instanceof"
}

// word reads an identifier, "" when none stands whole at p.i.
func (p *reader) word() string {
	j := p.i
	for j < len(p.s) && (isWordByte(p.s[j]) && (j > p.i || p.s[j] < '0' || p.s[j] > '9')) {
		j++
	}
	if j == p.i || j < len(p.s) && (p.s[j] == '\\' || p.s[j] >= utf8.RuneSelf) {
		return ""
	}
	w := p.s[p.i:j]
	p.i = j
	return w
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// value reads one literal at p.i.
func (p *reader) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, errShape
	}
	switch c := p.peek(); c {
	case '{':
		m := map[string]any{}
		err := p.list('}', func() error {
			var key string
			switch p.peek() {
			case '\'', '"':
				k, err := p.str()
				if err != nil {
					return err
				}
				key = k
			default:
				if key = p.word(); key == "" {
					return errShape
				}
			}
			if key == "__proto__" || key == "constructor" || key == "prototype" {
				return errShape
			}
			p.blank()
			if !p.eat(':') {
				return errShape
			}
			p.blank()
			v, err := p.value(depth + 1)
			m[key] = v // a later key replaces an earlier one, as in the client
			return err
		})
		return m, err
	case '[':
		var a []any
		err := p.list(']', func() error {
			v, err := p.value(depth + 1)
			a = append(a, v)
			return err
		})
		return a, err
	case '\'', '"', '`':
		return p.str()
	case '-':
		p.i++
		p.blank()
		return p.number()
	}
	if n, err := p.number(); err == nil {
		return n, nil
	}
	switch p.word() {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	return nil, errShape
}

// list reads the items of an object or array up to end. A trailing comma
// is allowed.
func (p *reader) list(end byte, item func() error) error {
	p.i++
	for n := 0; ; n++ {
		p.blank()
		if p.eat(end) {
			return nil
		}
		if n > 0 {
			if !p.eat(',') {
				return errShape
			}
			if p.blank(); p.eat(end) {
				return nil
			}
		}
		if err := item(); err != nil {
			return err
		}
	}
}

// number reads a decimal number. Its value is not needed, only its extent.
func (p *reader) number() (float64, error) {
	j := p.i
	digits := func() int {
		k := j
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		return j - k
	}
	switch {
	case p.peek() == '0':
		j++
	case p.peek() >= '1' && p.peek() <= '9':
		digits()
	case p.peek() == '.' && j+1 < len(p.s) && p.s[j+1] >= '0' && p.s[j+1] <= '9':
	default:
		return 0, errShape
	}
	if j < len(p.s) && p.s[j] == '.' {
		j++
		digits()
	}
	if j < len(p.s) && (p.s[j] == 'e' || p.s[j] == 'E') {
		k := j
		j++
		if j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-') {
			j++
		}
		if digits() == 0 {
			j = k
		}
	}
	if j < len(p.s) && (isWordByte(p.s[j]) || p.s[j] == '\\' || p.s[j] == '.' || p.s[j] >= utf8.RuneSelf) {
		return 0, errShape
	}
	p.i = j
	return 0, nil
}

// str reads a quoted string with the client's escapes. Some strings are
// unreadable here: a template with ${, a line break in a quoted string, an
// octal escape, or an escape of a surrogate.
func (p *reader) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
			continue
		case q == '`' && strings.HasPrefix(p.s[p.i:], "${"):
			return "", errShape
		case q != '`' && (c == '\n' || c == '\r'):
			return "", errShape
		case q == '`' && c == '\r':
			b.WriteByte('\n') // a lone CR in a template reads as a newline
		default:
			b.WriteByte(c)
		}
		p.i++
	}
	return "", errShape
}

var simpleEscapes = map[byte]string{'n': "\n", 'r': "\r", 't': "\t", 'b': "\b", 'f': "\f", 'v': "\v"}

func (p *reader) escape(b *strings.Builder) error {
	p.i++ // the backslash
	if p.i >= len(p.s) {
		return errShape
	}
	c := p.s[p.i]
	if e, ok := simpleEscapes[c]; ok {
		b.WriteString(e)
		p.i++
		return nil
	}
	switch {
	case c == '0':
		if p.i+1 < len(p.s) && p.s[p.i+1] >= '0' && p.s[p.i+1] <= '9' {
			return errShape
		}
		b.WriteByte(0)
		p.i++
		return nil
	case c >= '1' && c <= '9':
		return errShape
	case c == 'x' || c == 'u':
		r, n := hexEscape(p.s[p.i:])
		if n == 0 || r > utf8.MaxRune || r >= 0xD800 && r <= 0xDFFF {
			return errShape
		}
		b.WriteRune(r)
		p.i += n
		return nil
	case c == '\n' || c == '\r':
		p.i++ // a line continuation reads as nothing
		return nil
	}
	r, size := utf8.DecodeRuneInString(p.s[p.i:])
	if r != '\u2028' && r != '\u2029' {
		b.WriteRune(r)
	}
	p.i += size
	return nil
}

// hexEscape reads x.., u.... or u{...} at the start of s. It returns the
// rune and the bytes read, 0 when it is none of them.
func hexEscape(s string) (rune, int) {
	hex := func(t string) (rune, bool) {
		if t == "" {
			return 0, false
		}
		v, err := strconv.ParseUint(t, 16, 32)
		return rune(v), err == nil && v <= utf8.MaxRune
	}
	fixed := map[byte]int{'x': 2, 'u': 4}[s[0]]
	if s[0] == 'u' && len(s) > 1 && s[1] == '{' {
		end := strings.IndexByte(s, '}')
		if end < 0 || strings.Trim(s[2:end], "0123456789abcdefABCDEF") != "" {
			return 0, 0
		}
		r, ok := hex(s[2:end])
		if !ok {
			return utf8.MaxRune + 1, end + 1
		}
		return r, end + 1
	}
	if len(s) < 1+fixed || strings.Trim(s[1:1+fixed], "0123456789abcdefABCDEF") != "" {
		return 0, 0
	}
	r, _ := hex(s[1 : 1+fixed])
	return r, 1 + fixed
}
