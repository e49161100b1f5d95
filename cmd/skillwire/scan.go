package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/pluginrecord"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/session"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

// candidateJSON is a candidate as scan and list print it (DESIGN.md §7).
type candidateJSON struct {
	// Kind is what the candidate is: skill, agent, command, plugin,
	// settings, mcp, instructions or output-style.
	Kind      string           `json:"kind"`
	ID        *string          `json:"id"`
	Name      *string          `json:"name"`
	State     baseline.State   `json:"state"`
	Digest    *string          `json:"digest"`
	Partial   bool             `json:"partial"`
	Anomalies []anomaly.Reason `json:"anomalies"`
	// AnomalyEntries are the anomalies as digest prints them, {reason,
	// path} (DESIGN.md §7's one vocabulary; anomalies stays as it was).
	AnomalyEntries []anomalyJSON `json:"anomaly_entries"`
	Status         *string       `json:"status"`
	Verdict        *string       `json:"verdict"`
	// ViaSymlink: a top-level link observed through (information).
	ViaSymlink bool `json:"via_symlink"`
	// Changes: its file changes since the version a person reviewed (else
	// its first-use version), reconciled with the audit logs.
	Changes []cache.FileChange `json:"changes,omitempty"`
	// Mods: what its hooks files list as modules, as facts told. A mod
	// runs in-process code above every hook of settings but managed ones.
	Mods []string `json:"mods,omitempty"`
	// hiddenTag tells hidden names apart in text output, without a store.
	hiddenTag string
}

type rootJSON struct {
	Path       string           `json:"path"`
	Scope      claude.Scope     `json:"scope"`
	Kind       claude.Kind      `json:"kind"`
	Exists     bool             `json:"exists"`
	Anomalies  []anomaly.Reason `json:"anomalies"`
	Candidates []candidateJSON  `json:"candidates"`
}

type scanJSON struct {
	Roots []rootJSON `json:"roots"`
	// HooksOff are the settings files that stop skillwire's hooks.
	HooksOff []hooksOffJSON `json:"hooks_off"`
	// InstallRecord: where a plugin's folder disagrees with Claude Code's
	// own record of what it installed (installed_plugins.json).
	InstallRecord []string `json:"install_record"`
}

func newScanCmd(s *streams) *cobra.Command {
	var asJSON, update bool
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "scan",
		Short: "Observe every skill, agent and command root and print their states",
		Long: `scan discovers Claude Code's roots (<config>/skills, agents, commands, and
the project's .claude/skills, agents, commands), observes every candidate
under one shared budget, and prints each one's state against the store
(new, unchanged, changed, removed, partial), digest, status, verdict and
anomalies. It changes nothing, unless --update: then what it printed
becomes the delivered baseline (creating the store on first use, when every
candidate is accepted as the baseline).

<config> is $CLAUDE_CONFIG_DIR when absolute, else ~/.claude; the project
is $CLAUDE_PROJECT_DIR when absolute, else the working directory.

A user, project or managed settings file that sets disableAllHooks is told
in one line (--json "hooks_off"): Claude Code then runs none of skillwire's
hooks there.

Exit 0 clean, 3 when anything is new, changed, removed, anomalous, partial
or under an adverse verdict, a settings file stops skillwire's hooks, or a
plugin's folder disagrees with installed_plugins.json ("install_record"), 4
when the store is unusable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			var keep *history.Keeper
			if update {
				keep = w.keeper(&cfg, nil)
				defer collect(s, keep) // after the store is closed
			}
			obs := w.scan(cmd.Context(), s, cfg)
			opts := w.opts(update, false)
			var sts []baseline.Standing
			var subjects reconcile.Subjects
			first := false
			err = baseline.View(opts, func(tx *baseline.Tx) error {
				var err error
				if sts, err = tx.Compare(obs); err != nil {
					return err
				}
				if first = !tx.FirstRunDone(); !first {
					subjects, err = session.ReadDifferingSubjects(tx, sts)
				}
				return err
			})
			// compared: new means new against a delivered first run. The run
			// that creates the first baseline accepts; it does not find.
			compared := !update || !first
			switch {
			case err == nil:
			case !update && errors.Is(err, baseline.ErrAbsent):
				sts, compared = baseline.Fresh(obs), false
			default:
				return storeErr(err)
			}
			rec, _ := reconcileSubjects(w, s, subjects, cfg.Limits)
			out, finding := renderRoots(w, obs, sts, compared, rec)
			out.HooksOff = hooksOff(settings.HooksOffIn(w.places))
			out.InstallRecord = installRecord(pluginrecord.Facts(w.places))
			finding = finding || len(out.HooksOff) > 0 || len(out.InstallRecord) > 0
			show := func() error {
				if asJSON {
					return writeJSON(s.out, out)
				}
				printScan(s.out, out, w.places.Config)
				printHooksOff(s.out, out.HooksOff)
				printInstallRecord(s.out, out.InstallRecord)
				return nil
			}
			if update {
				// What was printed becomes the delivered baseline, as a
				// session's advisory does, and only once it was printed.
				var perr error
				_, err = session.Deliver(session.Delivery{Store: opts, Advisory: session.Scanned(sts, first), Keeper: keep},
					func() bool { perr = show(); return perr == nil })
				if perr != nil {
					return perr
				}
				if err != nil {
					return storeErr(err)
				}
			} else if err := show(); err != nil {
				return err
			}
			if finding {
				return errFinding
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&update, "update", false, "record what was printed as the delivered baseline")
	bf.add(cmd)
	return cmd
}

// renderRoots groups standings under their roots in the JSON contract's
// shape and says whether anything is a finding. Without a compared store,
// "new" is not a finding: there is nothing to be new against.
func renderRoots(w *world, obs []baseline.Observation, sts []baseline.Standing, compared bool, rec map[string]*reconcile.Reconciliation) (scanJSON, bool) {
	out := scanJSON{Roots: []rootJSON{}}
	finding := false
	for _, o := range obs {
		rj := rootJSON{Path: anomaly.QuoteBytes([]byte(o.Root.Path)), Scope: o.Root.Scope, Kind: o.Root.Kind, Exists: !o.Walk.Missing,
			Anomalies: nonNil(o.Walk.Anomalies), Candidates: []candidateJSON{}}
		finding = finding || len(o.Walk.Anomalies) > 0
		for i := range sts {
			if !sts[i].Root.Same(o.Root) {
				continue
			}
			cj, f := renderCandidate(&sts[i], compared)
			if r := rec[sts[i].ID]; r != nil {
				cj.Changes = r.Files()
			}
			finding = finding || f
			rj.Candidates = append(rj.Candidates, cj)
		}
		out.Roots = append(out.Roots, rj)
	}
	return out, finding
}

func renderCandidate(st *baseline.Standing, compared bool) (candidateJSON, bool) {
	cj := candidateJSON{Kind: session.KindOf(st), State: st.State, Anomalies: []anomaly.Reason{}, AnomalyEntries: []anomalyJSON{}}
	if st.ID != "" {
		id := st.ID
		cj.ID = &id
	}
	if n, ok := st.Root.Listed(st.Name); ok {
		cj.Name = &n
	} else {
		cj.hiddenTag = anomaly.NameHash(st.Name)
	}
	if c := st.Observed; c != nil {
		cj.ViaSymlink = c.Manifest.ViaLink
		cj.Partial = c.Partial()
		cj.Anomalies = nonNil(walkerReasons(c))
		cj.AnomalyEntries = anomalyEntries(c)
		cj.Mods = settings.ModTexts(st.Root.Kind, c.Canonical)
	}
	cj.Digest = hashString(st.Digest())
	status := st.Status()
	if status != "" {
		ss := string(status)
		cj.Status = &ss
	}
	adverse := false
	if st.Verdict != nil {
		v := st.Verdict.Verdict
		cj.Verdict = &v
		adverse = verdict.Adverse(v)
	}
	pending := status == baseline.StatusPending || status == baseline.StatusHalted
	finding := len(cj.Anomalies) > 0 || adverse || pending || compared && st.State != baseline.Unchanged
	return cj, finding
}

// reconcileSubjects reads the audit logs only when anything is to be
// reconciled, and reconciles. A log that cannot be read counts as no
// announcement. problem says why in fixed words.
func reconcileSubjects(w *world, s *streams, sub reconcile.Subjects, lim walker.Limits) (rec map[string]*reconcile.Reconciliation, problem string) {
	if len(sub.Candidates) == 0 {
		return nil, ""
	}
	src, problem := w.readAudit(s)
	return sub.Reconcile(src, time.Now(), lim), problem
}

// readAudit reads the audit logs of the world's roots for reconciliation.
func (w *world) readAudit(s *streams) ([]reconcile.Source, string) {
	scopes, err := w.auditScopes(s)
	if err != nil {
		return nil, "SKILLWIRE_AUDIT_LOG is not an absolute path"
	}
	return reconcile.ReadAudit(scopes)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func printScan(w io.Writer, out scanJSON, cfgDir string) {
	// A config root is a directory that holds other things: the home or
	// project directory. It exists on every machine, so only its files count.
	present := func(r rootJSON) bool {
		return len(r.Candidates) > 0 || r.Exists && r.Kind != claude.Config
	}
	exists := false
	for _, r := range out.Roots {
		exists = exists || present(r)
	}
	if !exists {
		fmt.Fprintf(w, "Nothing to watch: nothing Claude Code loads under %s or the project.\n",
			anomaly.QuoteBytes([]byte(cfgDir)))
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range out.Roots {
		if !present(r) {
			continue
		}
		fmt.Fprintf(tw, "%s %s  %s", r.Scope, r.Kind, r.Path) // already escaped by renderRoots
		if len(r.Anomalies) > 0 {
			fmt.Fprintf(tw, "  [%s]", anomaly.Join(r.Anomalies))
		}
		fmt.Fprintln(tw)
		if len(r.Candidates) == 0 {
			fmt.Fprintln(tw, "  (no candidates)")
			continue
		}
		fmt.Fprintln(tw, "  ID\tSTATE\tNAME\tDIGEST\tSTATUS\tVERDICT\tANOMALIES")
		for _, c := range r.Candidates {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", orDash(c.ID), c.State, c.display(),
				c.shortDigest(), orDash(c.Status), orDash(c.Verdict), reasonsOrDash(c.Anomalies))
			printModLines(tw, "    ", c.Mods)
		}
	}
	tw.Flush()
}

// anomalyEntries are c's anomalies as {reason, path}, the path gated as
// digest gates it.
func anomalyEntries(c *walker.Candidate) []anomalyJSON {
	out := []anomalyJSON{}
	for _, f := range c.Anomalies() {
		out = append(out, anomalyJSON{Reason: f.Reason, Path: anomaly.PathLabel(f.Path)})
	}
	return out
}

// printModLines gives each of a candidate's mod facts its own line, below
// its row.
func printModLines(w io.Writer, indent string, mods []string) {
	for _, m := range mods {
		fmt.Fprintf(w, "%smod: %s\n", indent, m)
	}
}

func orDash(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

// display is the name for a table: the gated name, else a tag of its hash.
// So two hidden names can be told apart even without ids.
func (c *candidateJSON) display() string {
	if c.Name == nil && c.hiddenTag != "" {
		return "(name hidden #" + c.hiddenTag + ")"
	}
	return displayName(c.Name)
}

func displayName(n *string) string {
	if n == nil {
		return "(name hidden)"
	}
	return *n
}

// shortDigest is the digest for a table. A partial candidate has none,
// and says so.
func (c *candidateJSON) shortDigest() string {
	switch {
	case c.Digest != nil:
		return (*c.Digest)[:len("blake3:")+16] + "…"
	case c.Partial:
		return "(partial)"
	}
	return "-"
}

func reasonsOrDash(rs []anomaly.Reason) string {
	if len(rs) == 0 {
		return "-"
	}
	return anomaly.Join(rs)
}
