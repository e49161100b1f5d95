package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/review"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/snapshot/findings"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

type reviewItemJSON struct {
	ID         string             `json:"id"`
	Digest     *string            `json:"digest"`
	Kind       string             `json:"kind"`
	Scope      string             `json:"scope"`
	Name       *string            `json:"name"`
	Status     string             `json:"status"`
	Risk       string             `json:"risk"`
	Facts      []string           `json:"facts"`
	Findings   []findings.Finding `json:"findings"`
	Provenance []string           `json:"provenance"`
	// From is the digest the diff starts from, null when never reviewed.
	From *string `json:"from"`
}

func reviewItem(it *review.Item) reviewItemJSON {
	j := reviewItemJSON{ID: it.ID, Digest: hashString(it.Digest), Kind: it.Kind, Scope: string(it.Scope), Status: it.Status,
		Risk: it.Risk.String(), Facts: nonNil(it.Facts), Findings: nonNil(it.Findings), Provenance: nonNil(it.Provenance)}
	if it.Name != "" {
		j.Name = &it.Name
	}
	if it.From != nil {
		j.From = new(it.From.Digest.String())
	}
	return j
}

func newReviewCmd(s *streams) *cobra.Command {
	var asJSON bool
	var reviewer string
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "review [--json]",
		Short: "Review what awaits a verdict, one item at a time, riskiest first",
		Long: `review lists the pending and unvetted candidates, each observed afresh, by
risk: mods, hooks and helpers, MCP servers, permission and allowed-tools
widening, scripts, then instruction text. Each shows what it is, where it
loads from, its facts, its content findings (facts for you, never a
verdict), its provenance, and its diff since the reviewed (else first-use)
version, whole when never reviewed, paged.

At each item one key and Enter: s SAFE-TO-PROPOSE, u SUSPECT, b BLOCK,
r restore the reviewed version, n skip, q quit. A verdict binds the digest
shown: when the content changed while you looked, review says so and
shows it again.

--json prints the items without asking. Without a terminal, review
refuses (exit 2): use --json, then 'skillwire record'.

Exit 0 nothing awaits review or every item got a verdict, 3 items remain,
2 usage error, 4 store unusable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			in, tty := s.in.(*os.File)
			if !asJSON && (!tty || !isTerminal(in)) {
				return fail(exitUsage, "review asks on a terminal, and this is none: run 'skillwire review --json', then 'skillwire record ID --verdict V --expect-digest D'")
			}
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			cs, err := w.contentStore()
			if err != nil {
				return err
			}
			if cs != nil {
				defer cs.Close()
			}
			qc := review.QueueConfig{Store: w.opts(false, true), Roots: w.roots, Places: w.places, Walk: cfg, Kept: kept(cs, nil)}
			items, err := review.Queue(cmd.Context(), qc)
			if err != nil && !errors.Is(err, baseline.ErrAbsent) {
				return storeErr(err)
			}
			if asJSON {
				out := struct {
					Items []reviewItemJSON `json:"items"`
				}{Items: []reviewItemJSON{}}
				for _, it := range items {
					out.Items = append(out.Items, reviewItem(it))
				}
				if err := writeJSON(s.out, out); err != nil {
					return err
				}
				if len(items) > 0 {
					return errFinding
				}
				return nil
			}
			p := &prompter{s: s, cmd: cmd, w: w, qc: qc, cfg: cfg, reviewer: reviewer, in: bufio.NewReader(in), rows: rows(in)}
			return p.run(items)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the items as one JSON object, asking nothing")
	cmd.Flags().StringVar(&reviewer, "reviewer", "", "who reviews (stored as printable ASCII, at most 200 characters)")
	bf.add(cmd)
	return cmd
}

// rows is the terminal's height less the prompt's, 24 when unknown.
func rows(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Row < 8 {
		return 20
	}
	return int(ws.Row) - 4
}

// prompter asks, item by item, as git add -p does.
type prompter struct {
	s        *streams
	cmd      *cobra.Command
	w        *world
	qc       review.QueueConfig
	cfg      walker.Config
	reviewer string
	in       *bufio.Reader
	rows     int
}

const reviewKeys = "s SAFE, u SUSPECT, b BLOCK, r restore, n skip, q quit"

func (p *prompter) run(items []*review.Item) error {
	out := p.s.out
	if len(items) == 0 {
		fmt.Fprintln(out, "Nothing awaits review.")
		return nil
	}
	left := 0
	for i := 0; i < len(items); i++ {
		it := items[i]
		fmt.Fprintf(out, "\n(%d/%d) ", i+1, len(items))
		key := p.show(it)
		switch key {
		case "q":
			left += len(items) - i
			fmt.Fprintf(out, "%d item(s) left for later.\n", left)
			return errFinding
		case "n":
			left++
			continue
		case "r":
			p.restore(it)
			left++
			continue
		}
		if it.Observed == nil {
			fmt.Fprintf(out, "%s was not observed (its root is not watched now): nothing was recorded\n", it.ID)
			left++
			continue
		}
		v := map[string]string{"s": verdict.Safe, "u": verdict.Suspect, "b": verdict.Block}[key]
		cfg := p.cfg
		keep := p.w.keeper(&cfg, nil) // the version the verdict names, for later diffs
		res, err := review.Record(p.cmd.Context(), review.Request{Store: p.w.opts(true, false), Verdict: v, Expect: it.Digest,
			Reviewer: p.reviewer, Walk: cfg, Keeper: keep, Via: "review", Find: func(*baseline.Store) (review.Candidate, error) {
				return review.Candidate{ID: it.ID, Root: it.Root, Name: it.RawName}, nil
			}})
		collect(p.s, keep)
		switch {
		case errors.Is(err, baseline.ErrDigestMismatch):
			fmt.Fprintf(out, "%s changed while you looked (now %s): nothing was recorded; here it is again.\n", it.ID, res.Observed.Digest)
			i--
		case err != nil:
			fmt.Fprintf(out, "not recorded: %s\n", refusal(err, it.ID, res.Observed))
			i--
		default:
			fmt.Fprintf(out, "recorded %s for %s at %s\n", v, it.ID, orDash(hashString(res.Verdict.Digest)))
		}
	}
	if left > 0 {
		return errFinding
	}
	return nil
}

// show prints the item, its diff paged, and returns the key pressed.
func (p *prompter) show(it *review.Item) string {
	if it.Observed != nil {
		it.Observe(p.cmd.Context(), p.qc) // what is on disk now is what is shown
	}
	var b strings.Builder
	j := reviewItem(it)
	fmt.Fprintf(&b, "%s %s %s, %s scope, %s (risk: %s)\n", it.ID, it.Kind, displayName(j.Name), it.Scope, it.Status, it.Risk)
	fmt.Fprintf(&b, "digest: %s\n", orDash(j.Digest))
	for _, l := range []struct {
		title string
		lines []string
	}{{"facts", it.Facts}, {"findings", findingLines(it.Findings)}, {"provenance", it.Provenance}} {
		if len(l.lines) == 0 {
			fmt.Fprintf(&b, "%s: none\n", l.title)
			continue
		}
		fmt.Fprintf(&b, "%s (%d):\n", l.title, len(l.lines))
		for _, x := range l.lines {
			fmt.Fprintf(&b, "  %s\n", x)
		}
	}
	if it.Observed != nil {
		ds, err := it.Diff(p.qc.Kept)
		from := "nothing (never reviewed): the whole of it"
		if it.From != nil {
			from = it.From.Digest.String()
		}
		fmt.Fprintf(&b, "diff from %s:\n", from)
		if err != nil {
			fmt.Fprintf(&b, "  diff unavailable: %s\n", defang(err.Error()))
		} else {
			printDiff(&b, &diffJSON{ID: it.ID, From: diffSideJSON{Digest: j.From}, To: diffSideJSON{Digest: j.Digest, OnDisk: true}, Files: filesJSON(ds)}, ds, false)
		}
	}
	return p.page(b.String())
}

func findingLines(fs []findings.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

// page shows text a screen at a time. Enter shows more; a key decides.
func (p *prompter) page(text string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
	for start := 0; ; {
		end := min(len(lines), start+p.rows)
		for _, l := range lines[start:end] {
			io.WriteString(p.s.out, strings.TrimSuffix(l, "\n")+"\n")
		}
		more := end < len(lines)
		if more {
			fmt.Fprintf(p.s.out, "-- %d more line(s): Enter for more; %s? ", len(lines)-end, reviewKeys)
		} else {
			fmt.Fprintf(p.s.out, "%s? ", reviewKeys)
		}
		line, err := p.in.ReadString('\n')
		if err != nil && line == "" {
			return "q" // the terminal closed: nothing decided
		}
		switch k := strings.ToLower(strings.TrimSpace(line)); k {
		case "s", "u", "b", "r", "n", "q":
			return k
		case "":
			if more {
				start = end
			}
		default:
			fmt.Fprintf(p.s.out, "one of: %s\n", reviewKeys)
		}
	}
}

// restore runs 'skillwire restore ID --expect-digest D', which shows
// what it would write and asks.
func (p *prompter) restore(it *review.Item) {
	if it.Digest == nil {
		fmt.Fprintf(p.s.out, "%s was observed partial: restore it with 'skillwire restore %s'\n", it.ID, it.ID)
		return
	}
	c := newRestoreCmd(p.s)
	c.SetArgs([]string{it.ID, "--expect-digest", it.Digest.String()})
	c.SetOut(p.s.out)
	c.SilenceUsage, c.SilenceErrors = true, true
	if err := c.ExecuteContext(p.cmd.Context()); err != nil {
		fmt.Fprintf(p.s.out, "not restored: %s\n", defang(err.Error()))
	}
}
