package gate

import (
	"bytes"

	"github.com/skillwire/skillwire/anomaly"
)

// shownUse reports whether a used name that no candidate answers may be
// shown: one that passes the display gate, or a namespaced
// "<plugin>:<name>" (a plugin's skill, a nested folder's) whose two parts
// each pass it (an inline --plugin-dir plugin's skill is asked as "pd:ps",
// never as "a name that cannot be shown").
func shownUse(name []byte) bool {
	ns, rest, ok := bytes.Cut(name, []byte{':'})
	return anomaly.Gate(name) || ok && anomaly.Gate(ns) && anomaly.Gate(rest)
}
