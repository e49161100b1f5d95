package shellcmd

import (
	"errors"
	"fmt"
	"strings"
)

// The parser recurses once per nesting level. A Go stack overflow is
// fatal, not a panic. 150,000 nested $( killed the gate (issue #31). So a
// line is measured before it is parsed, and refused past a bound. The
// bounds sit well below where parsing takes more than a few milliseconds.
const (
	// MaxBytes bounds a line's size. A flat line of this size parses in
	// tens of milliseconds. Unmeasured nesting this small cannot overflow
	// the stack.
	MaxBytes = 64 << 10
	// MaxDepth bounds a line's nesting, as depth measures it. A line
	// nested this deep parses in about two milliseconds.
	MaxDepth = 128
	// maxFields bounds the words brace expansion makes of one line, nested
	// lines included. {a,b}{a,b}… doubles with every pair.
	maxFields = 4096
	// maxFieldBytes bounds the bytes of those words.
	maxFieldBytes = 4 * MaxBytes
	// maxParsed bounds the bytes parsed for one line, nested lines
	// included. eval and sh -c reread their words. sudo eval sudo eval …
	// rereads them at every nesting: 400 bytes once took 10 s. Each parse
	// costs parseCost more, for its own work.
	maxParsed = 3 * MaxBytes
	parseCost = 512
)

// ErrUnread is a line Decision does not read: it is past a bound. Such a
// line is unknown. It may run anything.
var ErrUnread = errors.New("shellcmd: the command line is past what skillwire reads")

// The bound a line passed. Each wraps ErrUnread.
var (
	ErrTooLarge = fmt.Errorf("%w: larger than %d bytes", ErrUnread, MaxBytes)
	ErrTooDeep  = fmt.Errorf("%w: nested deeper than %d", ErrUnread, MaxDepth)
	ErrTooWide  = fmt.Errorf("%w: its words or nested lines expand too far", ErrUnread)
)

// bounded refuses a line past MaxBytes or MaxDepth.
func bounded(line string) error {
	if len(line) > MaxBytes {
		return ErrTooLarge
	}
	if depth(line) > MaxDepth {
		return ErrTooDeep
	}
	return nil
}

// depth measures how deep the parser would recurse on line, and how deep
// the tree it builds would be. It stops counting past MaxDepth. It is one
// pass over the bytes. It knows quotes, comments and here-documents, so a
// bracket in quoted text does not count.
//
// It over-counts rather than under-counts on lines that merely nest. A
// line crafted to fool it is still bounded by MaxBytes. Then the parse
// cannot overflow the stack, and the gate's deadline answers.
func depth(line string) int {
	// The parser reads past a NUL: &\x00& is &&.
	s := scan{line: strings.ReplaceAll(line, "\x00", ""), cmd: true}
	s.frames = append(s.frames, frame{})
	for s.i < len(s.line) && s.max <= MaxDepth {
		switch s.top().kind {
		case '"':
			s.quoted()
		case 'h':
			s.body()
		default:
			s.code()
		}
	}
	return s.max
}

// A frame is one construct open at the scan's position.
type frame struct {
	// kind is '(', '{', '[' for brackets, '`' for a backquote, '"' for
	// a double quote, 'h' for a here-document body, 'k' for a compound
	// command, 0 for the line itself.
	kind byte
	// end is what ends a 'k' frame (fi, done, esac) or an 'h' one.
	end string
	// strip is a <<- body's: leading tabs are not part of its lines.
	strip bool
	// ops is for arithmetic, [[ ]] and ${ }. Operators nest there.
	ops bool
	// soft counts what nests until the statement ends: |, &&, f(), time.
	soft int
	// keep is for [ and {, which may be no frame to the parser: [|] is a
	// pipe. What nested in one outlives it.
	keep bool
}

// A heredoc is a here-document whose body starts at the next newline.
type heredoc struct {
	end    string
	quoted bool
	strip  bool
}

type scan struct {
	line    string
	i       int
	frames  []frame
	d, max  int
	pending []heredoc
	// cmd is true where a word would be a command: keywords count there.
	cmd bool
	// joined is true after |, && or ||. A newline then continues it.
	joined bool
	// let makes the rest of the statement arithmetic (let 1+1).
	let bool
}

func (s *scan) top() *frame { return &s.frames[len(s.frames)-1] }

func (s *scan) push(f frame) {
	s.frames = append(s.frames, f)
	s.rise()
}

func (s *scan) rise() {
	s.d++
	s.max = max(s.max, s.d)
}

// pop closes the top frame if it is kind. A closer that matches nothing
// is not counted: counting it could only under-count.
func (s *scan) pop(kind byte) bool {
	f := s.top()
	if len(s.frames) == 1 || f.kind != kind {
		return false
	}
	s.frames = s.frames[:len(s.frames)-1]
	if s.d--; f.keep {
		s.top().soft += f.soft
	} else {
		s.d -= f.soft
	}
	return true
}

// soft nests one level until the statement ends.
func (s *scan) soft() {
	s.top().soft++
	s.rise()
}

// end ends a statement: what nested in it is closed.
func (s *scan) end() {
	f := s.top()
	s.d -= f.soft
	f.soft = 0
	s.let = false
}

// code scans one token where the line is code.
func (s *scan) code() {
	f, c := s.top(), s.line[s.i]
	if (f.ops || s.let) && strings.IndexByte("+-*/%!=<>&|^?:~,", c) >= 0 {
		s.soft() // a binary or unary operator nests its operand
		s.i++
		return
	}
	next := s.at(s.i + 1)
	cmd, joined := false, false
	switch c {
	case ' ', '\t', '\r':
		cmd, joined = s.cmd, s.joined
		s.i++
	case '\n':
		s.i++
		if !s.joined {
			s.end()
		}
		s.bodies()
		cmd, joined = true, s.joined
	case ';':
		s.end()
		s.i++
		cmd = true
	case '&':
		switch {
		case next == '&':
			s.soft()
			s.i += 2
			cmd, joined = true, true
		case next == '>' || s.i > 0 && (s.line[s.i-1] == '>' || s.line[s.i-1] == '<'):
			s.i++ // &> and >& redirect
		default:
			s.end()
			s.i++
			cmd = true
		}
	case '|':
		s.soft()
		s.i++
		if next == '|' || next == '&' {
			s.i++
		}
		cmd, joined = true, true
	case '(':
		s.i++
		j := s.i
		for j < len(s.line) && strings.IndexByte(" \t\r\n", s.line[j]) >= 0 {
			j++
		}
		if s.at(j) == ')' {
			s.soft() // f() and its body, maybe lines below
			s.i = j + 1
			cmd, joined = true, true
			break
		}
		s.push(frame{kind: '(', ops: f.ops || next == '('})
		if next == '(' {
			s.push(frame{kind: '(', ops: true})
			s.i++
		}
		cmd = true
	case ')':
		s.i++
		cmd = !s.pop('(') // a case pattern's ) precedes a command
		s.let = false
	case '{':
		s.push(frame{kind: '{', keep: true})
		s.i++
		cmd = true
	case '}':
		s.pop('{')
		s.let = false
		s.i++
	case '[':
		s.push(frame{kind: '[', ops: true, keep: true})
		s.i++
	case ']':
		s.pop('[')
		s.i++
	case '\'':
		s.i = s.past(s.i+1, '\'')
	case '"':
		s.push(frame{kind: '"'})
		s.i++
	case '\\':
		if next == '\n' {
			cmd, joined = s.cmd, s.joined
		}
		s.i += 2
	case '`':
		s.i++
		if !s.pop('`') {
			s.push(frame{kind: '`'})
			cmd = true
		} else {
			s.let = false
		}
	case '$':
		cmd = s.dollar(true)
	case '#':
		if s.i == 0 || strings.IndexByte(" \t\r\n;&|()<>", s.line[s.i-1]) >= 0 {
			s.i = s.lineEnd(s.i)
			cmd, joined = s.cmd, s.joined
		} else {
			s.i++
		}
	case '<':
		switch {
		case next == '(':
			s.push(frame{kind: '('})
			s.i += 2
			cmd = true
		case next == '<' && s.at(s.i+2) == '<':
			s.i += 3
		case next == '<':
			s.heredoc()
		default:
			s.i++
		}
	case '>':
		if next == '(' {
			s.push(frame{kind: '('})
			s.i += 2
			cmd = true
		} else {
			s.i++
		}
	case '!':
		cmd = s.cmd
		s.i++
	default:
		if isWordByte(c) {
			cmd, joined = s.word()
		} else {
			s.i++
		}
	}
	s.cmd, s.joined = cmd, joined
}

// word reads a word of letters, digits and _. It counts a keyword where
// a command would be. It reports whether a command may follow, and
// whether it may follow on a later line.
func (s *scan) word() (cmd, joined bool) {
	j := s.i
	for j < len(s.line) && isWordByte(s.line[j]) {
		j++
	}
	w := s.line[s.i:j]
	s.i = j
	if !s.cmd || j < len(s.line) && !strings.ContainsRune(" \t\r\n;&|()<>", rune(s.line[j])) {
		return false, false
	}
	switch w {
	case "if":
		s.push(frame{kind: 'k', end: "fi"})
		return true, false
	case "while", "until":
		s.push(frame{kind: 'k', end: "done"})
		return true, false
	case "for", "select":
		s.push(frame{kind: 'k', end: "done"})
	case "case":
		s.push(frame{kind: 'k', end: "esac"})
	case "fi", "done", "esac":
		if s.top().kind == 'k' && s.top().end == w {
			s.pop('k')
		}
	case "then", "do", "else", "elif":
		return true, false
	case "time", "coproc":
		s.soft()
		return true, true
	case "let":
		s.let = true
	}
	return false, false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// dollar scans what starts with $. code is false inside double quotes
// and unquoted here-documents. There $'…' is no quote. It reports whether
// a command may follow.
func (s *scan) dollar(code bool) bool {
	switch next := s.at(s.i + 1); {
	case strings.IndexByte("$?#!@*-0123456789", next) >= 0 && next != 0:
		s.i += 2 // a special parameter: $$[ is no $[
	case next == '(' && s.at(s.i+2) == '(':
		s.push(frame{kind: '(', ops: true})
		s.push(frame{kind: '(', ops: true})
		s.i += 3
	case next == '(':
		s.push(frame{kind: '('})
		s.i += 2
		return true
	case next == '{':
		s.push(frame{kind: '{', ops: true})
		s.i += 2
	case next == '[':
		s.push(frame{kind: '[', ops: true, keep: true})
		s.i += 2
	case next == '\'' && code:
		j := s.i + 2
		for j < len(s.line) && s.line[j] != '\'' {
			if s.line[j] == '\\' {
				j++
			}
			j++
		}
		s.i = j + 1
	case next == '"' && code:
		s.push(frame{kind: '"'})
		s.i += 2
	default:
		s.i++
	}
	return false
}

// quoted scans one token inside double quotes.
func (s *scan) quoted() {
	switch s.line[s.i] {
	case '\\':
		s.i += 2
	case '"':
		s.pop('"')
		s.i++
	case '`':
		s.push(frame{kind: '`'})
		s.cmd = true
		s.i++
	case '$':
		s.cmd = s.dollar(false)
	default:
		s.i++
	}
}

// body scans one token of an unquoted here-document's body. Its end is
// a line that is its word alone.
func (s *scan) body() {
	if s.i == 0 || s.line[s.i-1] == '\n' {
		f := s.top()
		e := s.lineEnd(s.i)
		l := s.line[s.i:e]
		if f.strip {
			l = strings.TrimLeft(l, "\t")
		}
		if l == f.end {
			s.pop('h')
			s.i = min(e+1, len(s.line))
			s.bodies()
			return
		}
	}
	switch s.line[s.i] {
	case '\\':
		s.i += 2
	case '`':
		s.push(frame{kind: '`'})
		s.cmd = true
		s.i++
	case '$':
		s.cmd = s.dollar(false)
	default:
		s.i++
	}
}

// heredoc reads a << operator and its word. The body waits for the line's
// end. A word with any quote in it makes a body that is all text.
func (s *scan) heredoc() {
	s.i += 2
	h := heredoc{}
	if s.at(s.i) == '-' {
		h.strip = true
		s.i++
	}
	s.i = s.skipBlanks(s.i)
	var b strings.Builder
	for s.i < len(s.line) && !strings.ContainsRune(" \t\r\n;&|()<>", rune(s.line[s.i])) {
		switch c := s.line[s.i]; c {
		case '\'', '"':
			h.quoted = true
			e := s.past(s.i+1, c)
			b.WriteString(s.line[s.i+1 : max(s.i+1, e-1)])
			s.i = e
		case '\\':
			h.quoted = true
			if s.i+1 < len(s.line) {
				b.WriteByte(s.line[s.i+1])
			}
			s.i += 2
		default:
			b.WriteByte(c)
			s.i++
		}
	}
	if h.end = b.String(); h.end != "" || h.quoted {
		s.pending = append(s.pending, h)
	}
}

// bodies starts the pending here-documents at a line's start. A quoted
// body is skipped whole. An unquoted one is scanned: it may hold $(.
func (s *scan) bodies() {
	for len(s.pending) > 0 {
		h := s.pending[0]
		s.pending = s.pending[1:]
		if !h.quoted {
			s.push(frame{kind: 'h', end: h.end, strip: h.strip})
			return
		}
		for s.i < len(s.line) {
			e := s.lineEnd(s.i)
			l := s.line[s.i:e]
			if h.strip {
				l = strings.TrimLeft(l, "\t")
			}
			s.i = min(e+1, len(s.line))
			if l == h.end {
				break
			}
		}
	}
}

// at is the byte at i, 0 past the end.
func (s *scan) at(i int) byte {
	if i < len(s.line) {
		return s.line[i]
	}
	return 0
}

// past is the index after the next q from i, or the line's end.
func (s *scan) past(i int, q byte) int {
	if j := strings.IndexByte(s.line[min(i, len(s.line)):], q); j >= 0 {
		return i + j + 1
	}
	return len(s.line)
}

func (s *scan) lineEnd(i int) int {
	if j := strings.IndexByte(s.line[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s.line)
}

func (s *scan) skipBlanks(i int) int {
	for i < len(s.line) && (s.line[i] == ' ' || s.line[i] == '\t') {
		i++
	}
	return i
}
