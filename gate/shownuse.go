package gate

import (
	"bytes"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
)

// shownUse reports whether a used name that no candidate answers may be
// shown. It may when it passes the display gate, or is a dot-leading name
// the client loads as it is (claude.DotName: ".hidden-tools"; the rule is
// one for skills, agents and commands). A namespaced "<plugin>:<name>"
// may when its two parts each pass the gate: a plugin's skill, a nested
// folder's. So an inline --plugin-dir plugin's skill is asked as "pd:ps",
// never as "a name that cannot be shown".
func shownUse(name []byte) bool {
	ns, rest, ok := bytes.Cut(name, []byte{':'})
	return anomaly.Gate(name) || claude.DotName(claude.Skills, name) || ok && anomaly.Gate(ns) && anomaly.Gate(rest)
}
