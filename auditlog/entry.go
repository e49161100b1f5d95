// Package auditlog is the append-only JSONL audit log. Tools that
// legitimately edit skills say in it what they did. It holds one JSON
// object per line, written by skillwire and other tools alike. Processes
// skillwire does not control write it. So every line is validated when it
// is read. A line that fails is skipped and counted with its line number.
// It is never fatal and never silently dropped. Lines skillwire appends
// carry `prev`, the SHA-256 of the line before them. So damage to the
// history they form can be found.
package auditlog

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxLine is the longest line read; a longer one is skipped unread.
const MaxLine = 1 << 20

// MaxLog is the most a log may hold to be read or verified. Whoever wrote a
// project writes its log. Reading must cost bounded time and memory.
// MaxSkipped is how many skipped lines are listed; past it they are only
// counted.
const (
	MaxLog     = 64 << 20
	MaxSkipped = 1000
)

// ClockSkew is how far in the future a timestamp may lie. Clocks of
// processes on one machine agree, but not to the nanosecond.
const ClockSkew = 2 * time.Minute

// Operation is what a tool did to a file.
type Operation string

const (
	Create   Operation = "create"
	Update   Operation = "update"
	Delete   Operation = "delete"
	Migrate  Operation = "migrate"
	Refine   Operation = "refine"
	Rollback Operation = "rollback"
)

// Valid reports whether o is one of the operations above.
func (o Operation) Valid() bool {
	switch o {
	case Create, Update, Delete, Migrate, Refine, Rollback:
		return true
	}
	return false
}

// Entry is one valid line of the log.
type Entry struct {
	Timestamp time.Time
	Operation Operation
	// FilePath is the file as the tool spelled it. It is absolute, or
	// relative to the log's base. It is never cleaned.
	FilePath string
	Source   string
	// Details is a JSON object, or nil.
	Details json.RawMessage
	// SHA256 is the file's content after the operation, 64 lowercase hex
	// digits, or "".
	SHA256 string
	// Prev is "sha256:" and the hex SHA-256 of the previous line's exact
	// bytes. It is "" on a line that does not chain.
	Prev string

	// Line is the 1-based line number it was read from (0 when not read).
	Line int
	// Raw is the line's exact bytes, without the newline. Fields skillwire
	// does not know are kept there.
	Raw []byte
}

// MarshalJSON prints the line as it was read, unknown fields included. An
// entry not read from a log prints skillwire's fields.
func (e Entry) MarshalJSON() ([]byte, error) {
	if e.Raw != nil {
		return e.Raw, nil
	}
	return e.encode()
}

// wire is the line skillwire writes: its own fields, in a fixed order.
type wire struct {
	Timestamp string          `json:"timestamp"`
	Operation Operation       `json:"operation"`
	FilePath  string          `json:"filePath"`
	Source    string          `json:"source"`
	Details   json.RawMessage `json:"details,omitempty"`
	SHA256    string          `json:"sha256,omitempty"`
	Prev      string          `json:"prev,omitempty"`
}

// encode serialises skillwire's fields only, as one line without newline.
// It refuses text JSON cannot carry faithfully. encoding/json would replace
// invalid UTF-8 silently. The log would then name another file.
func (e *Entry) encode() ([]byte, error) {
	for _, s := range []string{e.FilePath, e.Source} {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("%w: text must be UTF-8 without NUL bytes", ErrField)
		}
	}
	w := wire{Timestamp: e.Timestamp.UTC().Format(time.RFC3339Nano), Operation: e.Operation,
		FilePath: e.FilePath, Source: e.Source, SHA256: e.SHA256, Prev: e.Prev}
	if e.Details != nil {
		var buf bytes.Buffer
		if err := json.Compact(&buf, e.Details); err != nil {
			return nil, fmt.Errorf("%w: details: %v", ErrField, err)
		}
		w.Details = buf.Bytes()
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte{'\n'}), nil
}

// Why a line was skipped. The messages name fields, never the line's
// content, so they are safe to print.
var (
	ErrTooLong   = errors.New("line longer than 1 MiB")
	ErrEmpty     = errors.New("empty line")
	ErrNUL       = errors.New("NUL byte")
	ErrUTF8      = errors.New("invalid UTF-8")
	ErrMalformed = errors.New("not one JSON object")
	ErrField     = errors.New("missing or invalid field")
	ErrOperation = errors.New("unknown operation")
	ErrFuture    = errors.New("timestamp in the future")
)

// ParseLine validates one line, without its newline. The entry's Raw and
// Details alias b. now bounds the timestamp: more than ClockSkew ahead of
// now is refused. So an entry written today cannot explain a change made
// tomorrow.
//
// Known fields are matched by exact name. A line naming a field twice is
// refused. Readers that keep the first and those that keep the last must
// agree. They must never see two different entries in one line.
func ParseLine(b []byte, now time.Time) (Entry, error) {
	var e Entry
	switch {
	case len(b) > MaxLine:
		return e, ErrTooLong
	case len(bytes.TrimSpace(b)) == 0:
		return e, ErrEmpty
	case bytes.IndexByte(b, 0) >= 0:
		return e, ErrNUL
	case !utf8.Valid(b):
		return e, ErrUTF8
	case !json.Valid(b):
		return e, ErrMalformed
	}
	// Known fields are located first and decoded after. So most lines cost
	// a few allocations: a 100,000-line log reads well under a second.
	vals, err := locateFields(b)
	if err != nil {
		return e, err
	}
	var strs [numFields]string
	for i, v := range vals {
		switch {
		case v == nil && i < numRequired:
			return e, fmt.Errorf("%w: no %s", ErrField, fieldNames[i])
		case v == nil:
		case i == fDetails:
			if v[0] != '{' {
				return e, fmt.Errorf("%w: details is not an object", ErrField)
			}
			e.Details = v
		default:
			s, ok := unquote(v)
			if !ok {
				return e, fmt.Errorf("%w: %s is not a string", ErrField, fieldNames[i])
			}
			strs[i] = s
		}
	}
	e.FilePath, e.Source, e.SHA256, e.Prev = strs[fFilePath], strs[fSource], strs[fSHA256], strs[fPrev]
	e.Operation = Operation(strs[fOperation])
	if e.Timestamp, err = time.Parse(time.RFC3339Nano, strs[fTimestamp]); err != nil {
		return e, fmt.Errorf("%w: timestamp is not RFC 3339", ErrField)
	}
	if err := e.validate(now); err != nil {
		return e, err
	}
	e.Raw = b
	return e, nil
}

// locateFields returns the JSON text of each known field of the object b.
// An absent one is nil.
func locateFields(b []byte) (vals [numFields][]byte, err error) {
	dup := false
	if !members(b, func(key, val []byte) bool {
		i := fieldIndex(key)
		if i < 0 {
			return true // unknown fields are kept in Raw
		}
		if vals[i] != nil {
			dup = true
			return false
		}
		vals[i] = val
		return true
	}) {
		if dup {
			return vals, fmt.Errorf("%w: a field appears twice", ErrMalformed)
		}
		return vals, ErrMalformed
	}
	return vals, nil
}

// validate checks the decoded fields' values.
func (e *Entry) validate(now time.Time) error {
	if !e.Operation.Valid() {
		return ErrOperation
	}
	if e.FilePath == "" {
		return fmt.Errorf("%w: filePath is empty", ErrField)
	}
	if e.SHA256 != "" && !lowerHex64(e.SHA256) {
		return fmt.Errorf("%w: sha256 is not 64 lowercase hex digits", ErrField)
	}
	if rest, ok := strings.CutPrefix(e.Prev, prevPrefix); e.Prev != "" && (!ok || !lowerHex64(rest)) {
		return fmt.Errorf("%w: prev is not sha256: and 64 lowercase hex digits", ErrField)
	}
	if e.Timestamp.After(now.Add(ClockSkew)) {
		return ErrFuture
	}
	return nil
}

const prevPrefix = "sha256:"

// PrevOf is the prev of the line that follows a line whose SHA-256 is sum.
func PrevOf(sum [32]byte) string { return prevPrefix + hex.EncodeToString(sum[:]) }

// The fields skillwire knows, by index.
const (
	fTimestamp = iota
	fOperation
	fFilePath
	fSource
	fDetails
	fSHA256
	fPrev
	numFields
)

// numRequired counts the fields every line must have: those before it.
const numRequired = fDetails

// fieldNames are the fields' names in the log, by index.
var fieldNames = [numFields]string{fTimestamp: "timestamp", fOperation: "operation", fFilePath: "filePath",
	fSource: "source", fDetails: "details", fSHA256: "sha256", fPrev: "prev"}

func fieldIndex(key []byte) int {
	switch string(key) { // compared without allocating
	case "timestamp":
		return fTimestamp
	case "operation":
		return fOperation
	case "filePath":
		return fFilePath
	case "source":
		return fSource
	case "details":
		return fDetails
	case "sha256":
		return fSHA256
	case "prev":
		return fPrev
	}
	return -1
}

// unquote returns the JSON string val decoded; false when val is not a
// string. Most strings have no escapes and are taken as they are.
func unquote(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(val, '\\') < 0 {
		return string(val[1 : len(val)-1]), true
	}
	var s string
	return s, json.Unmarshal(val, &s) == nil
}

func lowerHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// members calls fn with each member of the top-level object of b, until fn
// returns false. json.Valid accepted b. fn gets the key decoded, and the
// value as its JSON text. members returns false when b is not an object or
// fn stopped it. Only the top level is looked at. Nested values are skipped
// over, never decoded.
func members(b []byte, fn func(key, val []byte) bool) bool {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if b[i] == '}' {
		return true
	}
	for {
		k := skipString(b, i)
		key := b[i+1 : k-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			s, _ := unquote(b[i:k])
			key = []byte(s)
		}
		i = skipSpace(b, k)
		i = skipSpace(b, i+1) // the colon
		v := skipValue(b, i)
		if !fn(key, b[i:v]) {
			return false
		}
		i = skipSpace(b, v)
		if b[i] == '}' {
			return true
		}
		i = skipSpace(b, i+1) // the comma
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}
