// Package anomaly owns the closed set of reasons a part of a watched tree
// could not be observed as plain content, and their one encoding. Every
// entry point names an unobservable thing through this package: digest,
// scan, the hook, the daemon. So a verdict one records, the others
// recognise.
package anomaly

import (
	"fmt"
	"strings"
)

// Reason is why an entry, a candidate or a root is anomalous. The numeric
// value is part of the manifest encoding: never renumber, only append.
type Reason uint8

const (
	_             Reason = iota
	Symlink              // a nested symbolic link; never followed
	Special              // a FIFO, socket or device; never opened
	Unreadable           // permission denied or an I/O error
	Oversize             // a file over the per-file cap; never partly hashed
	Unstable             // changed or vanished while it was observed
	Swapped              // its type changed between listing and opening
	Depth                // a directory past the depth limit; not opened
	Fanout               // a directory with more entries than the limit; not walked
	Badname              // a candidate name that fails the display gate
	Root                 // the candidate or root itself is missing or not observable
	Budget               // the shared scan budget ran out: the observation is partial
	Unparsable           // a configuration file that is not what its format requires
	DuplicateKey         // a configuration key given twice; the last one counts for Claude Code
	Alias                // YAML aliases that would expand past the limit; never expanded
	MultiDocument        // frontmatter of more than one YAML document; which one a reader takes is a guess
	maxReason
)

var reasonNames = [maxReason]string{
	Symlink:       "symlink",
	Special:       "special",
	Unreadable:    "unreadable",
	Oversize:      "oversize",
	Unstable:      "unstable",
	Swapped:       "swapped",
	Depth:         "depth",
	Fanout:        "fanout",
	Badname:       "badname",
	Root:          "root",
	Budget:        "budget",
	Unparsable:    "unparsable",
	DuplicateKey:  "duplicatekey",
	Alias:         "alias",
	MultiDocument: "multidocument",
}

// Valid reports whether r is one of the defined reasons.
func (r Reason) Valid() bool { return r > 0 && r < maxReason }

func (r Reason) String() string {
	if !r.Valid() {
		return fmt.Sprintf("reason(%d)", uint8(r))
	}
	return reasonNames[r]
}

// Join is the one spelling of a list of reasons, for the advisory and the
// terminal alike: fixed words, comma-separated.
func Join(rs []Reason) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// MarshalText encodes a reason by its name, as the JSON contract requires.
func (r Reason) MarshalText() ([]byte, error) {
	if !r.Valid() {
		return nil, fmt.Errorf("anomaly: invalid reason %d", uint8(r))
	}
	return []byte(reasonNames[r]), nil
}

// UnmarshalText accepts exactly the names MarshalText produces.
func (r *Reason) UnmarshalText(b []byte) error {
	p, ok := Parse(string(b))
	if !ok {
		return fmt.Errorf("anomaly: unknown reason %q", b)
	}
	*r = p
	return nil
}

// Parse returns the reason named s.
func Parse(s string) (Reason, bool) {
	for r := Reason(1); r < maxReason; r++ {
		if reasonNames[r] == s {
			return r, true
		}
	}
	return 0, false
}
