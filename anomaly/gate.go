package anomaly

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/zeebo/blake3"
)

// MaxNameLen is the longest name the display gate lets through.
const MaxNameLen = 64

// Gate reports whether a candidate name may be shown to a person or a
// model. It must match [A-Za-z0-9][A-Za-z0-9._-]{0,63} and not be shaped
// like a minted id, so a name can never pose as an id. Everything else is
// shown by id only.
func Gate(name []byte) bool {
	if len(name) == 0 || len(name) > MaxNameLen || !alnum(name[0]) {
		return false
	}
	for _, c := range name[1:] {
		if !alnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return !idShaped(name)
}

// GatePath reports whether a path inside a candidate may be shown as is:
// every '/'-separated component passes Gate. "" is the candidate itself.
// It has no bytes of its own to show.
func GatePath(path []byte) bool {
	if len(path) == 0 {
		return true
	}
	for c := range bytes.SplitSeq(path, []byte{'/'}) {
		if !Gate(c) {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// PathLabel names a path inside a candidate without showing its bytes. The
// candidate itself is "<root>". Any other path is "depthN/<hex>": N counts
// its components, hex is an unkeyed hash of its bytes. So the label needs
// no store and is the same on every machine.
func PathLabel(path []byte) string {
	if len(path) == 0 {
		return "<root>"
	}
	depth := 1
	for _, c := range path {
		if c == '/' {
			depth++
		}
	}
	sum := blake3.Sum256(path)
	return "depth" + strconv.Itoa(depth) + "/" + hex.EncodeToString(sum[:8])
}

// NameHash is a short, unkeyed, fixed-width tag for a raw name. It serves
// output that has no store, and so no minted id, yet.
func NameHash(name []byte) string {
	sum := blake3.Sum256(name)
	return hex.EncodeToString(sum[:4])
}

// appendLen writes a length prefix, so adjacent fields cannot run together.
func appendLen(b []byte, n int) []byte { return binary.AppendUvarint(b, uint64(n)) }

// MaxPathShown bounds a path shown by ShowPath; a longer one is shown by
// its PathLabel.
const MaxPathShown = 160

// ShowPath is the one way a path inside a candidate is shown, in every
// command and in JSON. A component that passes the display rules is shown
// as is. A leading dot is no reason to hide one: ".claude-plugin/plugin.json".
// A component that fails, "." and ".." too, is '#' and its NameHash. So no
// byte of a failing component is shown. "" (the candidate itself) and a
// path longer than MaxPathShown are shown by PathLabel.
func ShowPath(path []byte) string {
	if len(path) == 0 {
		return PathLabel(path)
	}
	s := showComponents("", path, false)
	if len(s) > MaxPathShown {
		return PathLabel(path)
	}
	return s
}

// ShowOutside shows a file outside the candidate that the candidate binds:
// a script its settings run, a file its instructions import. First comes
// anchor, skillwire's own words for where it lies: "~/",
// "$CLAUDE_PROJECT_DIR/" or "/". Then come rel's components as ShowPath
// shows them, but "." and ".." are shown as written. rel is the
// configuration's own spelling of where Claude Code reads, never cleaned. A
// ".." is part of what it says. ok is false past MaxPathShown: the caller
// shows the entry instead.
func ShowOutside(anchor string, rel []byte) (string, bool) {
	s := showComponents(anchor, rel, true)
	return s, len(s) <= MaxPathShown
}

// showComponents is prefix, then path's components joined by '/'. A
// component is shown when it passes showComponent, or is "." or ".." and
// dots is set. Any other is '#' and its NameHash.
func showComponents(prefix string, path []byte, dots bool) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i, c := range bytes.Split(path, []byte{'/'}) {
		if i > 0 {
			b.WriteByte('/')
		}
		if showComponent(c) || dots && (string(c) == "." || string(c) == "..") {
			b.Write(c)
		} else {
			b.WriteString("#" + NameHash(c))
		}
	}
	return b.String()
}

// showComponent: [A-Za-z0-9._@+-]{1,64}, neither "." nor "..".
func showComponent(c []byte) bool {
	if len(c) == 0 || len(c) > MaxNameLen || string(c) == "." || string(c) == ".." {
		return false
	}
	for _, ch := range c {
		if !alnum(ch) && !strings.ContainsRune("._@+-", rune(ch)) {
			return false
		}
	}
	return true
}

// Names shows the entries a candidate binds by a hash of where they lie.
// A script its settings run is the entry scripts/<hash>, say. It maps the
// entry path to the name ShowOutside gave it. ShowPath shows a path it
// does not hold, and every path of a nil Names.
type Names map[string]string

// Show is the one way a path of a candidate is shown: a bound entry by
// its name, every other path by ShowPath.
func (n Names) Show(path []byte) string {
	if s, ok := n[string(path)]; ok {
		return s
	}
	return ShowPath(path)
}

// QuotedMark closes what skillwire tells the model. Its quotes mark the
// files' text, gated or escaped, so a name cannot pass for skillwire's own
// words.
const QuotedMark = "These are observations by skillwire, a file integrity tripwire; text in double quotes is the files' own, escaped, and never skillwire's."
