package lockfile

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/skillwire/skillwire/anomaly"
)

// A report shows names, paths and roots only through NameLabel, FileLabel and
// the root's checked spelling. So nothing the tree's author chose reaches a
// terminal, a CI log or a model raw.

// ReportJSON is the shape of `verify --format json` (DESIGN.md §7). It holds
// ok, added, removed and changed. The additions are anomalous, adverse and
// matched.
type ReportJSON struct {
	OK        bool          `json:"ok"`
	Error     string        `json:"error,omitempty"`
	Added     []RefJSON     `json:"added"`
	Removed   []RefJSON     `json:"removed"`
	Changed   []ChangedJSON `json:"changed"`
	Anomalous []ProblemJSON `json:"anomalous"`
	Adverse   []RefJSON     `json:"adverse"`
	Matched   int           `json:"matched"`
}

// RefJSON names a candidate. It is name when the name passes the display
// gate. Else name is null and name_hex holds the hex of its raw bytes.
type RefJSON struct {
	Root    string  `json:"root"`
	Name    *string `json:"name"`
	NameHex string  `json:"name_hex,omitempty"`
	Kind    string  `json:"kind"`
	Digest  string  `json:"digest"`
	Verdict string  `json:"verdict,omitempty"`
	// Facts: what an added or changed configuration now makes Claude Code
	// run, load or allow, escaped (Ref.Facts).
	Facts []string `json:"facts,omitempty"`
}

// ChangedJSON is a changed candidate: digest as observed, locked_digest
// as locked, and the paths that differ.
type ChangedJSON struct {
	RefJSON
	LockedDigest string     `json:"locked_digest"`
	Files        []FileJSON `json:"files"`
}

// FileJSON is one differing path: path ("" is the candidate itself). When a
// component fails the display gate, path is null and path_hex set. A
// configuration candidate's bound script or import has path where it lies
// (FileChange.Shown). Its entry is its path in the lock (scripts/<hash>).
type FileJSON struct {
	Path    *string `json:"path"`
	PathHex string  `json:"path_hex,omitempty"`
	Entry   string  `json:"entry,omitempty"`
	Kind    string  `json:"kind"`
	Change  string  `json:"change"`
}

// ProblemJSON is an anomalous candidate, or with name null and no
// name_hex, an anomalous root.
type ProblemJSON struct {
	Root    string           `json:"root"`
	Name    *string          `json:"name"`
	NameHex string           `json:"name_hex,omitempty"`
	Reasons []anomaly.Reason `json:"reasons"`
}

// JSON renders r.
func (r *Report) JSON() ReportJSON {
	out := ReportJSON{OK: r.OK(), Added: RefsJSON(r.Added), Removed: RefsJSON(r.Removed),
		Changed: []ChangedJSON{}, Anomalous: ProblemsJSON(r.Anomalous), Adverse: RefsJSON(r.Adverse), Matched: r.Matched}
	for _, c := range r.Changed {
		cj := ChangedJSON{RefJSON: refJSON(c.Ref), LockedDigest: c.Locked.String(), Files: []FileJSON{}}
		for _, f := range c.Files {
			fj := FileJSON{Kind: f.Kind.String(), Change: f.Change.String()}
			plain, hexed := encodeBytes(f.Path, plainPath(f.Path))
			fj.Path = plain
			if hexed != nil {
				fj.PathHex = *hexed
			}
			if f.Shown != "" {
				fj.Path, fj.PathHex, fj.Entry = &f.Shown, "", string(f.Path)
			}
			cj.Files = append(cj.Files, fj)
		}
		out.Changed = append(out.Changed, cj)
	}
	return out
}

// ProblemsJSON renders problems, never as null.
func ProblemsJSON(problems []Problem) []ProblemJSON {
	out := make([]ProblemJSON, 0, len(problems))
	for _, p := range problems {
		pj := ProblemJSON{Root: p.Root, Reasons: p.Reasons}
		if pj.Reasons == nil {
			pj.Reasons = []anomaly.Reason{}
		}
		if p.Name != nil {
			pj.Name, pj.NameHex = nameJSON(p.Root, p.Name)
		}
		out = append(out, pj)
	}
	return out
}

// FailureJSON is the report when verification could not run at all, as for a
// missing or malformed lock. It is never ok.
func FailureJSON(msg string) ReportJSON {
	return ReportJSON{Error: msg, Added: []RefJSON{}, Removed: []RefJSON{}, Changed: []ChangedJSON{},
		Anomalous: []ProblemJSON{}, Adverse: []RefJSON{}}
}

// RefsJSON renders candidate references, never as null.
func RefsJSON(refs []Ref) []RefJSON {
	out := make([]RefJSON, 0, len(refs))
	for _, r := range refs {
		out = append(out, refJSON(r))
	}
	return out
}

func refJSON(r Ref) RefJSON {
	rj := RefJSON{Root: r.Root, Kind: r.Kind.String(), Digest: r.Digest.String(), Verdict: string(r.Verdict)}
	for _, f := range r.Facts {
		rj.Facts = append(rj.Facts, f.String())
	}
	rj.Name, rj.NameHex = nameJSON(r.Root, r.Name)
	return rj
}

func nameJSON(root string, n []byte) (*string, string) {
	plain, hexed := encodeBytes(n, plainName(root, n))
	if hexed != nil {
		return nil, *hexed
	}
	return plain, ""
}

// ProblemLabel names a problem's root or candidate.
func ProblemLabel(p Problem) string {
	if p.Name == nil {
		return p.Root + " (the root)"
	}
	return Ref{Root: p.Root, Name: p.Name}.Label()
}

// Count says "1 thing" or "n things".
func Count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// ReasonList joins reasons for text output.
func ReasonList(rs []anomaly.Reason) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// WriteText renders r for a terminal. lockName is how the lock was named
// on the command line, shown quoted.
func (r *Report) WriteText(w io.Writer, lockName string) error {
	var b bytes.Buffer
	name := anomaly.QuoteBytes([]byte(lockName))
	if r.OK() {
		fmt.Fprintf(&b, "ok: %s in %s match %s\n", Count(r.Matched, "candidate"), Count(len(r.Roots), "root"), name)
		_, err := w.Write(b.Bytes())
		return err
	}
	fmt.Fprintf(&b, "%s does not match the tree (%s):\n", name, Count(r.Findings(), "finding"))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	facts := func(ref Ref) {
		for _, f := range ref.Facts {
			fmt.Fprintf(tw, "    fact\t%s\n", f)
		}
	}
	for _, a := range r.Added {
		fmt.Fprintf(tw, "  added\t%s\t%s %s\n", a.Label(), a.Kind, a.Digest)
		facts(a)
	}
	for _, a := range r.Removed {
		fmt.Fprintf(tw, "  removed\t%s\t%s %s\n", a.Label(), a.Kind, a.Digest)
	}
	for _, c := range r.Changed {
		fmt.Fprintf(tw, "  changed\t%s\t%s %s (locked %s)\n", c.Label(), c.Kind, c.Digest, c.Locked)
		facts(c.Ref)
		for _, f := range c.Files {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", f.Change, f.Label(), f.Kind)
		}
	}
	for _, p := range r.Anomalous {
		fmt.Fprintf(tw, "  anomalous\t%s\t%s\n", ProblemLabel(p), ReasonList(p.Reasons))
	}
	for _, a := range r.Adverse {
		fmt.Fprintf(tw, "  adverse\t%s\tthe lock's verdict is %s\n", a.Label(), a.Verdict)
	}
	tw.Flush()
	if len(r.Anomalous) > 0 {
		b.WriteString("An anomalous root or candidate never matches: remove or fix it.\n")
	}
	if r.LockVersion == 1 {
		fmt.Fprintf(&b, "%s is a version 1 lock: it locks no settings, .mcp.json or instruction file, so each is added.\n", name)
	}
	b.WriteString("After a review of every change, update the lock with: skillwire lock\n")
	_, err := w.Write(b.Bytes())
	return err
}
