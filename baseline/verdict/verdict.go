// Package verdict is the vocabulary of a reviewer's judgement: the three
// verdicts and which of them warn. The store and a lock file share it, so
// they never disagree about a verdict.
package verdict

// The verdicts, spelled as they are stored, locked and typed on the
// command line.
const (
	Safe    = "SAFE-TO-PROPOSE"
	Suspect = "SUSPECT"
	Block   = "BLOCK"
)

// Valid reports whether v is one of the three verdicts.
func Valid(v string) bool { return v == Safe || v == Suspect || v == Block }

// Adverse reports whether v warns against the content.
func Adverse(v string) bool { return v == Suspect || v == Block }
