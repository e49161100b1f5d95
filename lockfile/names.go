package lockfile

import (
	"encoding/hex"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
)

// Names, entry paths and link texts come from the tree's author. A lock and
// every report show them as plain text only when they are harmless to show.
// Otherwise they show the hex of their raw bytes. Hex is exact, as a lock
// must round-trip every byte. It carries no control byte, no shell syntax and
// no words.
//
//	name: plain when it passes anomaly.Gate, or is a dot name (claude.DotName)
//	path: plain when it passes anomaly.GatePath
//	link: plain when anomaly.QuoteBytes leaves it as is (no byte escaped)

// hexPrefix marks a hex label in text output. No plain name or path can
// contain ':', so a label is never ambiguous.
const hexPrefix = "hex:"

// plainName: a configuration file's name (".mcp.json") fails the gate's first
// rule. But it is skillwire's word, not the author's. A dot-leading skill,
// agent or command of the root root (".hidden-tools") is shown with its dot,
// as the client lists and runs it (claude.DotName).
func plainName(root string, n []byte) bool {
	return anomaly.Gate(n) || claude.CandidateKind(claude.Config, n) != "" || dotName(root, n)
}

// dotName: n is a dot name claude.DotName accepts in the root root, whose
// kind is its last component (ParseRoot). Locks written before such a name
// was plain spell it as name_hex, which still reads: it is the one name
// with two spellings.
func dotName(root string, n []byte) bool {
	return claude.DotName(claude.Kind(root[strings.LastIndexByte(root, '/')+1:]), n)
}

func plainPath(p []byte) bool { return anomaly.GatePath(p) }

func plainLink(l []byte) bool { return len(l) > 0 && anomaly.QuoteBytes(l) == string(l) }

// NameLabel shows a candidate name of the root root. It is the name itself
// when it is plain (plainName), else "hex:" and the hex of its bytes.
func NameLabel(root string, n []byte) string { return label(n, plainName(root, n)) }

// FileLabel shows a path inside a candidate the same way; the candidate
// itself is "(itself)".
func FileLabel(p []byte) string {
	if len(p) == 0 {
		return "(itself)"
	}
	return label(p, plainPath(p))
}

func label(b []byte, plain bool) string {
	if plain {
		return string(b)
	}
	return hexPrefix + hex.EncodeToString(b)
}

// decodeHex accepts only the lowercase hex EncodeToString produces. So every
// byte string has one spelling in a lock.
func decodeHex(s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return nil, false
		}
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}
