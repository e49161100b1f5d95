// Package gate decides what Claude Code is told at the moment a skill,
// agent or command is used (DESIGN.md §13). A policy and the candidate's
// state now give an answer. It is nothing, ask or deny, and never allow.
package gate

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/gate/shellcmd"
)

// Errors of the gate. A caller wraps its own failure with one of these. So
// fail can say what happened without quoting the failure's text.
var (
	ErrPolicy   = errors.New("gate: policy must be audit, balanced or strict")
	ErrDeadline = errors.New("gate: deadline passed")
	ErrLocked   = errors.New("gate: store locked or busy")
	// ErrStore: the store could not be located, opened or read. The
	// person's choice of policy is then unknown, and answered as strict.
	ErrStore = errors.New("gate: store could not be located or read")
)

// Policy is the person's choice of how hard the gate holds. It is kept in
// the store, so a project cannot change it.
type Policy uint8

const (
	Audit Policy = iota + 1
	Balanced
	Strict
)

// DefaultPolicy is the policy of a store where none was chosen.
const DefaultPolicy = Balanced

var policyNames = [...]string{Audit: "audit", Balanced: "balanced", Strict: "strict"}

func (p Policy) Valid() bool { return p >= Audit && p <= Strict }

func (p Policy) String() string {
	if !p.Valid() {
		return "invalid"
	}
	return policyNames[p]
}

// ParsePolicy reads a policy name exactly as String writes it.
func ParsePolicy(s string) (Policy, error) {
	for p := Audit; p <= Strict; p++ {
		if policyNames[p] == s {
			return p, nil
		}
	}
	return 0, ErrPolicy
}

func (p Policy) MarshalText() ([]byte, error) {
	if !p.Valid() {
		return nil, ErrPolicy
	}
	return []byte(p.String()), nil
}

func (p *Policy) UnmarshalText(b []byte) error {
	q, err := ParsePolicy(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// State is what a candidate is now, judged on the bytes on disk. There is
// one per row of the gate's table (issue #16).
type State uint8

const (
	// Vetted: reviewed SAFE-TO-PROPOSE at exactly this digest.
	Vetted State = iota + 1
	// Familiar: a first-use baseline or seen, unchanged since the person
	// was told of it.
	Familiar
	// New: new since the last session and never reviewed.
	New
	// Pending: pending or halted (issue #14).
	Pending
	// Anomalous: anomalous, or only partly read.
	Anomalous
	// Suspect: reviewed SUSPECT.
	Suspect
	// Blocked: reviewed BLOCK.
	Blocked
)

var stateNames = [...]string{
	Vetted: "vetted", Familiar: "familiar", New: "new", Pending: "pending",
	Anomalous: "anomalous", Suspect: "suspect", Blocked: "blocked",
}

func (s State) Valid() bool { return s >= Vetted && s <= Blocked }

func (s State) String() string {
	if !s.Valid() {
		return "invalid"
	}
	return stateNames[s]
}

// Answer is what the gate tells Claude Code. None prints nothing and lets
// Claude Code's own permission flow run. There is no allow. Answers are
// ordered: a greater answer is worse for the candidate.
type Answer uint8

const (
	None Answer = iota
	Ask
	Deny
)

func (a Answer) String() string {
	switch a {
	case None:
		return "none"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "invalid"
}

// Decision is the hook decision of a, false for None.
func (a Answer) Decision() (hookio.Decision, bool) {
	switch a {
	case Ask:
		return hookio.Ask, true
	case Deny:
		return hookio.Deny, true
	}
	return 0, false
}

// table is issue #16's table, row by state, column by policy.
var table = [...][Strict + 1]Answer{
	Vetted:    {Audit: None, Balanced: None, Strict: None},
	Familiar:  {Audit: None, Balanced: None, Strict: Ask},
	New:       {Audit: None, Balanced: Ask, Strict: Ask},
	Pending:   {Audit: None, Balanced: Ask, Strict: Deny},
	Anomalous: {Audit: None, Balanced: Ask, Strict: Deny},
	Suspect:   {Audit: None, Balanced: Ask, Strict: Deny},
	Blocked:   {Audit: None, Balanced: Deny, Strict: Deny},
}

// Decide answers for one candidate. A policy that is not valid is read as
// Strict: an unreadable choice must not weaken the gate. A state that is
// not valid is judged as Anomalous. What cannot be classified is an
// anomaly.
func Decide(p Policy, s State) Answer {
	if !p.Valid() {
		p = Strict
	}
	if !s.Valid() {
		s = Anomalous
	}
	return table[s][p]
}

// Worst is the worst of answers, None for none. When a name is ambiguous,
// every match is judged and the worst answer wins.
func Worst(answers ...Answer) Answer {
	w := None
	for _, a := range answers {
		if a > w {
			w = a
		}
	}
	return w
}

// failure is the gate's answer when it could not judge, with a note for
// stderr. Under strict, the note is the deny's reason, which the hook log
// keeps.
type failure struct {
	Answer Answer
	Note   string
}

// fail answers for a gate that could not judge in time or at all. Audit
// answers nothing: it only observes. Balanced asks. Strict denies, as does
// a policy that is not valid. The note names the kind of failure only. It
// never quotes err's text, which may hold a path or a name from the tree.
func fail(p Policy, err error) failure {
	what, judge := "an internal error", "could not judge"
	switch {
	case errors.Is(err, ErrDeadline), errors.Is(err, context.DeadlineExceeded):
		what, judge = "its deadline passed", "could not judge in time"
	case errors.Is(err, ErrLocked):
		what, judge = "the store was locked or busy", "could not judge in time"
	case errors.Is(err, ErrStore):
		what = "the store could not be located or read"
	case errors.Is(err, shellcmd.ErrUnread):
		what, judge = shellcmd.Unread(err), "could not read the command"
	}
	switch p {
	case Audit:
		return failure{None, fmt.Sprintf("skillwire gate: %s (%s); policy audit answers nothing", judge, what)}
	case Balanced:
		// A deadline, an error or a busy store never opens the gate. An
		// attacker can bring each about: a tree padded past the deadline.
		// So the person is asked.
		return failure{Ask, fmt.Sprintf("skillwire gate: %s (%s); policy balanced asks", judge, what)}
	}
	return failure{Deny, fmt.Sprintf("skillwire gate: %s (%s); policy strict denies until it can", judge, what)}
}

// unlocated answers for a gate whose store cannot be located at all: the
// environment names no usable state directory. It answers as strict. The
// person's choice cannot be read, and the gate is never weaker than it.
func unlocated(err error) failure { return fail(Strict, fmt.Errorf("%w: %w", ErrStore, err)) }
