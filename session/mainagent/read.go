package mainagent

import (
	"encoding/json"
	"strings"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"github.com/zeebo/blake3"
)

// maxAgentRead bounds one plugin agent file read for its name. A larger
// one's name is unread.
const maxAgentRead = 1 << 20

// maxAgentReads bounds the plugin agent files one session start reads.
// Past it, names are unread: ambiguous, and told.
const maxAgentReads = 512

// frontName reads the frontmatter name of the plugin's agent file e, in
// the plugin folder dir. The walk saw the file. Its bytes are read again,
// never through a link at the file or its folder, and must hash as the
// walk saw them: else the name is unread (ok false). "" is no name: the
// client then takes the file's stem, as when it cannot read the
// frontmatter either.
func frontName(dir string, e snapshot.Entry) (name string, ok bool) {
	p := string(e.Path)
	i := strings.LastIndexByte(p, '/')
	j := strings.LastIndexByte(p[:max(i, 0)], '/')
	if i < 0 || e.Kind != snapshot.File {
		return "", false
	}
	parent := dir
	if j >= 0 {
		parent += "/" + p[:j]
	}
	reads, err := walker.ReadFiles(parent, p[j+1:i], []string{p[i+1:]}, maxAgentRead)
	if err != nil || len(reads) != 1 || reads[0].Missing || reads[0].Reason != 0 || snapshot.Hash(blake3.Sum256(reads[0].Data)) != e.Hash {
		return "", false
	}
	return nameOf(config.Frontmatter(reads[0].Data).Canonical)
}

// nameOf is the frontmatter name in an agent's canonical form. A form
// the client cannot read either names nothing. A name that is no string
// is unread: the client would spell it as JavaScript does.
func nameOf(canon []byte) (string, bool) {
	var fm map[string]json.RawMessage
	if canon == nil || json.Unmarshal(canon, &fm) != nil {
		return "", false
	}
	if string(fm["unreadable"]) == "true" {
		return "", true
	}
	raw, ok := fm["name"]
	if !ok || string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
