package lockfile

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
)

// Rules are the finding classes of a verification. GitHub annotations use
// them as titles, SARIF as rule ids.
var Rules = []Rule{
	{ID: "SW001", Name: "candidate-added", Text: "A candidate is in the tree but not in the lock."},
	{ID: "SW002", Name: "candidate-removed", Text: "A candidate is in the lock but not in the tree."},
	{ID: "SW003", Name: "file-changed", Text: "A path of a candidate differs from the lock."},
	{ID: "SW004", Name: "anomalous", Text: "A root or candidate could not be observed as plain content; it never matches the lock."},
	{ID: "SW005", Name: "adverse-verdict", Text: "A candidate matches the lock, whose verdict for it is BLOCK or SUSPECT."},
	{ID: "SW006", Name: "configuration-fact", Text: "An added or changed configuration makes Claude Code run, load or allow something the lock does not."},
}

// Rule is one finding class.
type Rule struct{ ID, Name, Text string }

const (
	ruleAdded = iota
	ruleRemoved
	ruleChanged
	ruleAnomalous
	ruleAdverse
	ruleFact
)

// finding is one result, in the order every output lists them.
type finding struct {
	rule     int
	location string // a repository path, plain by construction
	message  string
}

func (r *Report) findings(lockName string) []finding {
	name := anomaly.QuoteBytes([]byte(lockName))
	var out []finding
	facts := func(ref Ref) {
		for _, f := range ref.Facts {
			out = append(out, finding{ruleFact, location(ref.Root, ref.Name, nil), ref.Label() + ": " + f.String()})
		}
	}
	for _, a := range r.Added {
		out = append(out, finding{ruleAdded, location(a.Root, a.Name, nil),
			fmt.Sprintf("%s (%s, %s) is not in %s", a.Label(), a.Kind, a.Digest, name)})
		facts(a)
	}
	for _, a := range r.Removed {
		out = append(out, finding{ruleRemoved, location(a.Root, a.Name, nil),
			fmt.Sprintf("%s (%s, %s) is in %s but not in the tree", a.Label(), a.Kind, a.Digest, name)})
	}
	for _, c := range r.Changed {
		facts(c.Ref)
		for _, f := range c.Files {
			at := f.Path
			if f.Shown != "" {
				at = nil // the entry is no file of the repository: the candidate is
			}
			out = append(out, finding{ruleChanged, location(c.Root, c.Name, at),
				fmt.Sprintf("%s %s %s in %s (now %s, locked %s)", f.Kind, f.Label(), f.Change, c.Label(), c.Digest, c.Locked)})
		}
		if len(c.Files) == 0 {
			out = append(out, finding{ruleChanged, location(c.Root, c.Name, nil),
				fmt.Sprintf("%s changed (now %s, locked %s)", c.Label(), c.Digest, c.Locked)})
		}
	}
	for _, p := range r.Anomalous {
		loc := p.Root
		if p.Name != nil {
			loc = location(p.Root, p.Name, nil)
		}
		out = append(out, finding{ruleAnomalous, loc,
			fmt.Sprintf("%s cannot be verified: %s", ProblemLabel(p), ReasonList(p.Reasons))})
	}
	for _, a := range r.Adverse {
		out = append(out, finding{ruleAdverse, location(a.Root, a.Name, nil),
			fmt.Sprintf("%s matches %s, whose verdict for it is %s", a.Label(), name, a.Verdict)})
	}
	return out
}

// location is where a finding is pinned in the repository. It is the path
// itself when every component is plain, else its nearest plain ancestor.
func location(root string, name, path []byte) string {
	if !plainName(root, name) {
		return root
	}
	loc := root + "/" + string(name)
	if root == "." {
		loc = string(name)
	}
	for c := range bytes.SplitSeq(path, []byte{'/'}) {
		if !anomaly.Gate(c) {
			break
		}
		loc += "/" + string(c)
	}
	return loc
}

// WriteGitHub renders r as GitHub Actions workflow commands. It writes one
// ::error annotation per finding, or one ::notice when the tree matches.
func (r *Report) WriteGitHub(w io.Writer, lockName string) error {
	var b strings.Builder
	if r.OK() {
		fmt.Fprintf(&b, "::notice title=%s::%s\n", ghProperty("skillwire verify"),
			ghData(fmt.Sprintf("%s in %s match %s", Count(r.Matched, "candidate"), Count(len(r.Roots), "root"), anomaly.QuoteBytes([]byte(lockName)))))
	}
	for _, f := range r.findings(lockName) {
		rule := Rules[f.rule]
		fmt.Fprintf(&b, "::error file=%s,title=%s::%s\n", ghProperty(f.location), ghProperty(rule.ID+" "+rule.Name), ghData(f.message))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// GitHubError is the annotation for a verification that could not run.
func GitHubError(lockName, msg string) string {
	return fmt.Sprintf("::error title=%s::%s\n", ghProperty("skillwire verify: cannot verify "+anomaly.QuoteBytes([]byte(lockName))), ghData(msg))
}

// ghData escapes a workflow command's message as the runner unescapes it: %
// first, then CR and LF. So no message can end the command early or start
// another one.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a property value, which also ends at ':' and ','.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
