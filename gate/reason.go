package gate

import (
	"strconv"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/gate/served"
	"github.com/skillwire/skillwire/snapshot"
)

// Finding is what the gate knows of one candidate when it asks or denies.
// It is everything the reason may say. All of it is from the store or the
// walk.
type Finding struct {
	Candidate resolve.Candidate
	State     State
	// Anomaly is the candidate's first anomaly when State is Anomalous.
	Anomaly anomaly.Reason
	// Partial means the candidate could only be partly read.
	Partial bool
	// Root means the finding is of a root that could not be listed. A
	// candidate of the name may be in it, unseen. Candidate then holds only
	// the root's kind and scope. Anomaly says why it could not be listed.
	Root bool
	// Reviewed is when the candidate was last reviewed, zero if never.
	Reviewed time.Time
	Change   Change
	// Digest is the complete digest judged, nil when there is none.
	Digest *snapshot.Hash
	// Undecided: New although sessions were told of it, since no person
	// decided on it. Change.On is when skillwire first saw it.
	Undecided bool
	// Capped: the use's references went past what the gate follows.
	Capped bool
	// Like is for a new candidate held as Blocked or Suspect. It names the
	// candidate under the adverse verdict it resembles, and how.
	Like string
	// Replaces is for a plugin version pending the review of the version
	// it replaces. It names that version (subject).
	Replaces string
	// Unknown: the name resolves to no candidate skillwire observed.
	// Builtin: it is one of the client's own skills' or agents' names.
	// AddedUnknown: the session added folders skillwire cannot observe.
	// Twin: the name may be a plugin's that skillwire cannot observe
	// (Env.PluginsUnknown).
	Unknown, Builtin, AddedUnknown, Twin bool
	// Script is for a workflow of no watched file (Unknown). It says what
	// runs instead: the call's own script or a file's path, quoted.
	Script string
	// Unnamed is for a Workflow call. It says which of the scripts it runs
	// may start an agent skillwire cannot name, and why. It holds gated
	// names and fixed words only.
	Unnamed string
	// Served is for a skill judged on the copy the client read of it, not
	// on the disk (onCopy).
	Served served.Copy
}

// Change is how the bytes on disk differ from the version the person last
// judged. The zero Change means unchanged.
type Change struct {
	Added, Modified, Removed int
	// Announced: the change came with an announcement (issue #14).
	Announced bool
	// Unreconciled: no audit log was consulted. So the reason says nothing
	// about an announcement either way.
	Unreconciled bool
	// Since says which version the change is counted from, and On when.
	Since Since
	On    time.Time
}

// Since names the version a change is counted from.
type Since uint8

const (
	// SinceSafe: the version reviewed SAFE.
	SinceSafe Since = iota + 1
	// SinceTold: the version the person was first told of.
	SinceTold
)

func (c Change) changed() bool { return c.Added > 0 || c.Modified > 0 || c.Removed > 0 }

// Reason is the one factual sentence an ask or a deny carries. It is built
// from fixed templates, names that pass the display gate, a minted id,
// numbers and dates only. So no byte of the tree reaches it. An example:
//
//	skill "pdf" (swbybm4kq2rx7a3c) changed since it was reviewed SAFE on
//	2026-11-12: 1 file modified, not announced; see 'skillwire diff swbybm4kq2rx7a3c'
func Reason(f Finding) string {
	if f.Unnamed != "" {
		return f.Unnamed + ", so what it starts cannot be judged"
	}
	if f.Unknown && f.Script != "" {
		return "the workflow runs " + f.Script + ", which skillwire does not watch and no person reviewed: what it runs cannot be judged"
	}
	if f.Unknown {
		k := f.Candidate.Kind.String()
		name := "a name that cannot be shown"
		if shownUse(f.Candidate.Folder) {
			name = `"` + string(f.Candidate.Folder) + `"`
		}
		if f.Like != "" {
			return "the " + k + " " + name + " is none that skillwire has observed, and is held as " + f.State.verdictWord() + " until a person decides: " + f.Like
		}
		if f.Twin && f.Like == "" {
			return "the " + k + " " + name + " may be served by a plugin this session loads from a folder (--plugin-dir) that skillwire cannot observe or name, which Claude Code prefers to an installed plugin of the same name, so what it loads cannot be judged"
		}
		if f.Builtin && f.AddedUnknown {
			return "the " + k + " " + name + " is one of Claude Code's own, but this session added folders skillwire cannot observe, and a file of that name there, which the client prefers, cannot be judged"
		}
		if f.Builtin {
			return "the " + k + " " + name + " is one of Claude Code's own, but a folder skillwire does not watch (--add-dir) can serve a file of that name, which the client prefers: it cannot be judged"
		}
		if f.AddedUnknown {
			return "the " + k + " " + name + " is none that skillwire has observed nor one of Claude Code's own, and this session added folders skillwire cannot observe, so what it loads cannot be judged: it is new and never reviewed"
		}
		return "the " + k + " " + name + " is none that skillwire has observed nor one of Claude Code's own, so what it loads cannot be judged: it is new and never reviewed"
	}
	if f.Capped {
		return "the " + f.Candidate.Kind.String() + " loads more candidates through its references than skillwire follows, so what it loads cannot all be judged"
	}
	if f.Root {
		k := f.Candidate.Kind.String()
		return "the " + f.Candidate.Scope.String() + " " + k + "s folder could not be listed (" + f.Anomaly.String() +
			"), so a " + k + " of this name may be there and cannot be judged"
	}
	var b strings.Builder
	b.WriteString(f.Candidate.Subject())
	b.WriteByte(' ')
	b.WriteString(clause(f))
	verb := "history"
	if f.State.Valid() && f.State < Anomalous && f.Change.changed() {
		verb = "diff"
	}
	if f.Candidate.Via != "" {
		b.WriteString("; " + f.Candidate.Via)
	}
	if anomaly.IsID(f.Candidate.ID) {
		b.WriteString("; see 'skillwire " + verb + " " + f.Candidate.ID + "'")
	}
	return b.String()
}

// clause says what is wrong, by the worst of what the finding holds.
func clause(f Finding) string {
	switch {
	case f.Like != "":
		return "is new and held as " + f.State.verdictWord() + " until a person decides: " + f.Like
	case f.Served == served.Blocked || f.Served == served.Suspect:
		return "is served from the copy Claude Code read this session, whose content was reviewed " + f.State.verdictWord() + ", whatever the disk holds now"
	case f.State == Blocked:
		return "was reviewed BLOCK" + on(f.Reviewed)
	case f.State == Suspect:
		return "was reviewed SUSPECT" + on(f.Reviewed)
	case f.Served == served.Changed:
		return "was written after Claude Code read it this session, so the copy it serves may not be the one on disk, even if its bytes were put back"
	case f.Served == served.StartUnkept:
		return "is served from the copy Claude Code read at the session's start or its last reload, and skillwire kept no proof of that copy, so what it serves cannot be judged"
	case f.Served == served.Unkept:
		return "is served from the copy Claude Code read when a file below its folder was first touched, and skillwire kept no proof of that copy, so what it serves cannot be judged"
	case f.State == Anomalous || !f.State.Valid():
		switch {
		case f.Partial:
			return "could only be partly read, so it cannot be judged"
		case f.Anomaly.Valid():
			return "has an anomaly (" + f.Anomaly.String() + "), so it cannot be judged"
		}
		return "is anomalous, so it cannot be judged"
	case f.Replaces != "" && f.Change.changed():
		return "is a new version of " + f.Replaces + " and " + changed(f.Change)
	case f.Replaces != "":
		return "is a new version of " + f.Replaces + " and waits for a review of its own"
	case f.Change.changed():
		return changed(f.Change)
	case f.State == New && f.Undecided:
		return "was told to a session" + on(f.Change.On) + " but no person has decided on it: telling the model is no review"
	case f.State == New:
		return "is new since the last session and was never reviewed"
	case f.State == Familiar:
		return "was never reviewed; it is unchanged since skillwire first told of it" + on(f.Change.On)
	case f.State == Pending:
		return "is waiting for a review"
	}
	return "was reviewed SAFE" + on(f.Reviewed)
}

func changed(c Change) string {
	s := "changed since "
	switch c.Since {
	case SinceSafe:
		s += "it was reviewed SAFE"
	case SinceTold:
		s += "skillwire first told of it"
	default:
		s += "it was last seen"
	}
	s += on(c.On) + ": "
	var parts []string
	for _, p := range []struct {
		n    int
		verb string
	}{{c.Added, "added"}, {c.Modified, "modified"}, {c.Removed, "removed"}} {
		if p.n <= 0 {
			continue
		}
		files := " files "
		if p.n == 1 {
			files = " file "
		}
		parts = append(parts, strconv.Itoa(p.n)+files+p.verb)
	}
	s += strings.Join(parts, ", ")
	if c.Unreconciled {
		return s
	}
	if c.Announced {
		return s + ", announced"
	}
	return s + ", not announced"
}

func on(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " on " + t.UTC().Format(time.DateOnly)
}

// Judge answers for every candidate a name resolved to. The worst answer
// wins. Its reason is that of the first finding with it. The reason notes
// how many candidates answer to the name. No finding, or only findings
// that answer nothing, gives None and no reason.
func Judge(p Policy, findings []Finding) (Answer, string) {
	worst, at := None, -1
	for i, f := range findings {
		if a := Decide(p, f.State); a > worst {
			worst, at = a, i
		}
	}
	if worst == None {
		return None, ""
	}
	r := Reason(findings[at])
	if n := len(findings); n > 1 {
		r += " (" + strconv.Itoa(n) + " candidates answer to this name; the worst is shown)"
	}
	return worst, r
}
