package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/baseline/review"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/clientproc"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/session"
	"github.com/skillwire/skillwire/session/unrecorded"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

// statusEntryJSON is S in DESIGN.md §7.
type statusEntryJSON struct {
	ID      string       `json:"id"`
	Scope   claude.Scope `json:"scope"`
	Kind    string       `json:"kind"`
	Name    *string      `json:"name"`
	Status  string       `json:"status"`
	Verdict *string      `json:"verdict"`
	// Pending and halted entries: why auto-accept halted, and how often
	// sessions were told.
	Halt      string     `json:"halt,omitempty"`
	Told      int        `json:"told,omitempty"`
	ToldSince *time.Time `json:"told_since,omitempty"`
	// Changes since the version a person reviewed (else the first-use
	// version; a candidate with neither: all of it), reconciled.
	Changes []cache.FileChange `json:"changes,omitempty"`
	// Anomalies of the last observation delivered.
	Anomalies []anomaly.Reason `json:"anomalies,omitempty"`
}

type daemonJSON struct {
	Alive        bool     `json:"alive"`
	HeartbeatAge *float64 `json:"heartbeat_age_s"`
	// Watching is "whole", or why it is degraded (the daemon then rescans
	// periodically instead of trusting events); null without a heartbeat.
	Watching *string `json:"watching"`
}

type statusJSON struct {
	Baseline baseline.Health   `json:"baseline"`
	Error    string            `json:"error,omitempty"`
	Pending  []statusEntryJSON `json:"pending"`
	Unvetted []statusEntryJSON `json:"unvetted"`
	Adverse  []statusEntryJSON `json:"adverse_verdicts_in_baseline"`
	Safe     []statusEntryJSON `json:"vetted_safe"`
	// Anomalous are the entries above whose last delivered observation
	// holds an anomaly, listed again together.
	Anomalous []statusEntryJSON `json:"anomalous"`
	// Changed are the unvetted entries that changed since their first
	// use, listed again: what a session's notice counts as "changed".
	Changed []statusEntryJSON `json:"changed_unreviewed"`
	Daemon  daemonJSON        `json:"daemon"`
	// Gate is what the gate asked and denied lately, newest first.
	Gate []baseline.Note `json:"gate"`
	// HooksOff are the settings files that stop skillwire's hooks.
	HooksOff []hooksOffJSON `json:"hooks_off"`
	// InstallRecord: where a plugin's folder disagrees with Claude Code's
	// own record of what it installed (installed_plugins.json), one line each.
	InstallRecord []string `json:"install_record"`
	// HooksIncomplete is skillwire's own install when it lacks some of its
	// hooks (settings.IncompleteIn), null when it has them all or none.
	HooksIncomplete *hooksIncompleteJSON `json:"hooks_incomplete"`
	// HooksInstalled: skillwire's SessionStart hook is in a settings file
	// the client reads; without it no session is told anything.
	HooksInstalled bool `json:"hooks_installed"`
	// Mods are the plugins on disk whose hooks file lists modules;
	// ModsUnknown, that some could not be observed whole. ModPolicy is
	// what holds against them.
	Mods        []modJSON `json:"mods"`
	ModsUnknown bool      `json:"mods_unknown"`
	// ModsUnseen says why the plugin folders of the sessions running now
	// could not all be read (mods_unknown then), "" when they were.
	ModsUnseen string        `json:"mods_unseen"`
	ModPolicy  modPolicyJSON `json:"mod_policy"`
	// LaterSessions is what status cannot see of a session started later
	// (settings.Sideload).
	LaterSessions laterJSON `json:"later_sessions"`
	// LastStartUnrecorded says that the last session start told its
	// session and could not record it (session/unrecorded); null if not.
	LastStartUnrecorded *string `json:"last_start_unrecorded"`
}

// laterJSON is settings.Sideload: whether the client refuses the
// command-line loads of a session started later, the managed file that
// makes it (escaped), and the sentence status prints.
type laterJSON struct {
	SideloadRefused bool   `json:"sideload_refused"`
	RefusedIn       string `json:"refused_in,omitempty"`
	Note            string `json:"note"`
}

func laterOf(s settings.Sideload) laterJSON {
	j := laterJSON{SideloadRefused: s.RefusedIn != "", Note: s.String()}
	if j.SideloadRefused {
		j.RefusedIn = anomaly.QuoteBytes([]byte(s.RefusedIn))
	}
	return j
}

// modJSON is one mod: its candidate and what its hooks files list, as
// facts told.
type modJSON struct {
	ID    string       `json:"id,omitempty"`
	Scope claude.Scope `json:"scope"`
	Name  *string      `json:"name"`
	Facts []string     `json:"facts"`
}

// modPolicyJSON is settings.ModPolicy: whether a mod is held, the client's
// policy in force and why, and what to run when it is not held.
type modPolicyJSON struct {
	Held            bool   `json:"held"`
	ManagedHooks    bool   `json:"managed_hooks"`
	ManagedModsOnly bool   `json:"managed_mods_only"`
	Seated          bool   `json:"security_default_seated"`
	Policy          string `json:"policy"`
	Advice          string `json:"advice,omitempty"`
}

func modsOf(w *world, rep *review.Status) ([]modJSON, modPolicyJSON) {
	out := []modJSON{}
	for _, m := range rep.Mods {
		j := modJSON{ID: m.ID, Scope: m.Root.Scope, Facts: installRecord(m.Facts)}
		if n, ok := w.display(m.Root.Path, m.Root.Kind, m.Name); ok {
			j.Name = &n
		}
		out = append(out, j)
	}
	p := rep.ModPolicy
	return out, modPolicyJSON{Held: p.Held(), ManagedHooks: p.ManagedHooks, ManagedModsOnly: p.ManagedModsOnly(), Seated: p.Seated && p.Unseated == "",
		Policy: p.String(), Advice: p.Advice()}
}

// printMods names each mod with its facts, says when some may be unseen,
// and gives the mod policy in force.
func printMods(w io.Writer, out *statusJSON) {
	for _, m := range out.Mods {
		fmt.Fprintf(w, "mod: %s %s %s: %s\n", orDash(&m.ID), m.Scope, displayName(m.Name), strings.Join(m.Facts, "; "))
	}
	switch {
	case out.ModsUnseen != "":
		fmt.Fprintf(w, "mods: %s, so a mod may be there untold\n", out.ModsUnseen)
	case out.ModsUnknown:
		fmt.Fprintln(w, "mods: a folder that holds plugins was not observed whole, so a mod may be there untold")
	}
	p := out.ModPolicy
	switch {
	case p.Held:
		fmt.Fprintf(w, "mod policy: %s\n", p.Policy)
	case len(out.Mods) > 0 || out.ModsUnknown:
		fmt.Fprintf(w, "mod policy: %s; not held: %s\n", p.Policy, p.Advice)
	default:
		fmt.Fprintf(w, "mod policy: %s (no mod present)\n", p.Policy)
	}
}

// running is what the clients running now load with --plugin-dir: the
// folders their processes name, and the plugins in them.
type running struct {
	dirs clientproc.PluginDirs
	claude.Inline
}

// runningPlugins reads the plugin folders of the clients of w's
// configuration directory running now. A
// --plugin-dir is a session's alone, and a mod there can mute the start
// that would record it: so status reads the clients themselves.
func runningPlugins(s *streams, w *world) running {
	d := clientproc.Running(s.client.Proc, w.places.Config)
	return running{dirs: d, Inline: claude.InlinePlugins(d.Dirs, d.NoMCP)}
}

// Unseen is why a running session's plugin folders could not all be
// read, in fixed words, or "".
func (r running) Unseen() string {
	switch {
	case r.dirs.Problem != "":
		return "the plugin folders of the sessions running now (--plugin-dir) could not all be read: " + r.dirs.Problem
	case r.Inline.Unknown():
		return "a plugin folder of a session running now (--plugin-dir) could not be read whole"
	}
	return ""
}

// modRoots observes the world's roots that hold plugins, for their mods,
// with the folders sessions added (--plugin-dir) the store knows and the
// plugins of the sessions running now.
func modRoots(ctx context.Context, s *streams, w *world, now []claude.PluginSource) []baseline.Observation {
	mw := *w
	mw.roots = slices.Clone(w.roots)
	if len(now) > 0 {
		p := w.places
		p.Inline = append(slices.Clone(p.Inline), now...)
		mw.roots = p.Roots()
	}
	mw.withAdded(s)
	mw.roots = slices.DeleteFunc(mw.roots, func(r claude.Root) bool { return !settings.HoldsMods(r.Kind) })
	return mw.observations(walker.Scan(ctx, mw.specs(), walker.DefaultConfig()))
}

// hooksIncompleteJSON is settings.Incomplete: the file, the missing hooks'
// events and what to do.
type hooksIncompleteJSON struct {
	Path    string   `json:"path"`
	Missing []string `json:"missing"`
	Advice  string   `json:"advice"`
}

func hooksIncomplete(i *settings.Incomplete) *hooksIncompleteJSON {
	if i == nil {
		return nil
	}
	return &hooksIncompleteJSON{Path: anomaly.QuoteBytes([]byte(i.Path)), Missing: i.Events(), Advice: i.Advice()}
}

// hooksOffJSON is a settings file under which skillwire's hooks do not run
// (settings.HooksOff), and what to do about it.
type hooksOffJSON struct {
	Scope  claude.Scope `json:"scope"`
	Path   string       `json:"path"`
	Advice string       `json:"advice"`
}

func hooksOff(hs []settings.HooksOff) []hooksOffJSON {
	out := []hooksOffJSON{}
	for _, h := range hs {
		out = append(out, hooksOffJSON{Scope: h.Scope, Path: anomaly.QuoteBytes([]byte(h.Path)), Advice: h.Advice()})
	}
	return out
}

// installRecord are the facts of pluginrecord.Facts as lines.
func installRecord(fs []config.Fact) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

// printInstallRecord says, one line a disagreement, where a plugin's folder
// is not what Claude Code recorded installing.
func printInstallRecord(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintf(w, "install record: %s\n", l)
	}
}

// printHooksOff says, one line a file, that skillwire's hooks do not run.
func printHooksOff(w io.Writer, hs []hooksOffJSON) {
	scope := map[claude.Scope]string{claude.Global: "user", claude.Project: "project", claude.Managed: "managed"}
	for _, h := range hs {
		fmt.Fprintf(w, "hooks off: %s settings %s sets disableAllHooks: Claude Code runs none of skillwire's hooks there (no advisory, no gate); %s\n",
			scope[h.Scope], h.Path, h.Advice)
	}
}

func newStatusCmd(s *streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say what the store holds: pending, unvetted, adverse and vetted-safe candidates",
		Long: `status reads the store only (it observes nothing on disk) and sorts every
record by severity: an adverse verdict (SUSPECT or BLOCK) in force, on the
record or on the same content elsewhere, is always listed, whatever
changed since. Pending candidates (reviewed SAFE-TO-PROPOSE, changed
since, halted when auto-accept refused the change) are listed first. Every
entry whose delivered version differs from the version a person reviewed
(else its first-use version; a candidate with neither: all of it) carries
its file changes since, reconciled with the audit logs (--json "changes";
the only files status reads are the changed ones, to compare their hashes).

It also reads the user's, the project's and the managed settings files for
disableAllHooks: where one sets it, Claude Code runs none of skillwire's
hooks (no advisory, no gate), and status says so first (--json
"hooks_off"), with what to do.

It observes the folders that hold plugins for mods (a plugin whose hooks
file lists "modules": in-process code above every hook of settings but
managed ones), since a mod can mute the session start that would tell
one. Those include the --plugin-dir folders of the sessions running now,
read from each Claude Code process of this user; when some cannot be
read, it says why (--json "mods_unseen"). Each is named with what it lists (--json "mods"), then the client's
mod policy in force and why (--json "mod_policy"): only managed
allowManagedModsOnly, with the client's security default seated, keeps a
person's mod from loading.

A session started later has a command line nobody can know now: what it
loads with --plugin-dir, --plugin-url, --mcp-config or --agents is not seen
here, and status says so, naming the place above it, sudo skillwire hook
install --managed --managed-no-sideload (the client's managed
disableSideloadFlags). Where a managed file sets that, it says instead that
the client refuses those flags (--json "later_sessions"). Neither changes
the exit code.

Exit 0, 3 when any adverse verdict is in the store, any candidate is
pending or halted, a settings file stops skillwire's hooks, a mod is
present (or a folder that holds plugins was not observed whole) and the
mod policy does not keep it from loading, or a plugin's
folder disagrees with installed_plugins.json (--json "install_record"), 4 when the store is
corrupt, stale, untrusted or busy. An absent store is exit 0: nothing has
been recorded yet (which says nothing about what is installed).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			running := runningPlugins(s, w)
			rep := review.Report(review.StatusConfig{Store: w.opts(false, true), Roots: w.roots, Places: w.places,
				Audit: func() ([]reconcile.Source, string) { return w.readAudit(s) }, Limits: walker.DefaultLimits, Gate: gateShown,
				Observe: func() []baseline.Observation { return modRoots(cmd.Context(), s, w, running.Plugins) }, ModsUnseen: running.Unseen()})
			out := statusOf(w, &rep)
			if asJSON {
				if err := writeJSON(s.out, out); err != nil {
					return err
				}
			} else {
				printStatus(s, &out)
			}
			switch {
			case out.Baseline != baseline.OK && out.Baseline != baseline.Absent:
				return &exitError{code: exitCode(rep.Err, exitNoAudit)}
			case rep.Finding(), out.LastStartUnrecorded != nil:
				return errFinding
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// statusOf renders the report in the JSON contract's shape.
func statusOf(w *world, rep *review.Status) statusJSON {
	out := statusJSON{Baseline: rep.Health, Pending: []statusEntryJSON{}, Unvetted: []statusEntryJSON{}, Adverse: []statusEntryJSON{},
		Safe: []statusEntryJSON{}, Anomalous: []statusEntryJSON{}, Gate: []baseline.Note{},
		HooksOff: hooksOff(rep.HooksOff), InstallRecord: installRecord(rep.InstallRecord), HooksIncomplete: hooksIncomplete(rep.HooksIncomplete), ModsUnknown: rep.ModsUnknown, ModsUnseen: rep.ModsUnseen,
		HooksInstalled: rep.HooksInstalled, Changed: []statusEntryJSON{}}
	out.Mods, out.ModPolicy = modsOf(w, rep)
	out.LaterSessions = laterOf(rep.Sideload)
	if m := unrecorded.Read(w.stateDir); m != nil {
		words := m.Words()
		out.LastStartUnrecorded = &words
	}
	if rep.Err != nil && out.Baseline != baseline.Absent {
		out.Error = defang(rep.Err.Error())
	}
	if rep.Gate != nil {
		out.Gate = rep.Gate
	}
	out.Daemon = daemonState(session.Daemon{Running: rep.DaemonRunning, Heartbeat: rep.Heartbeat}, time.Now())
	for _, l := range []struct {
		dst  *[]statusEntryJSON
		recs []*baseline.Record
	}{{&out.Pending, rep.Pending}, {&out.Unvetted, rep.Unvetted}, {&out.Adverse, rep.Adverse}, {&out.Safe, rep.Safe}, {&out.Anomalous, rep.Anomalous()}} {
		for _, r := range l.recs {
			e := statusEntry(w, r)
			if rc := rep.Changes[r.ID]; rc != nil {
				e.Changes = rc.Files()
			}
			*l.dst = append(*l.dst, e)
		}
	}
	for _, e := range out.Unvetted {
		if len(e.Changes) > 0 && e.Status != "removed" {
			out.Changed = append(out.Changed, e)
		}
	}
	return out
}

// gateShown is how many of the gate's recent asks and denies status shows.
const gateShown = 20

func daemonState(d session.Daemon, now time.Time) daemonJSON {
	hb := d.Heartbeat
	if hb == nil {
		return daemonJSON{}
	}
	age := now.Sub(hb.At).Seconds()
	watching := "whole"
	if !hb.Whole {
		watching = "degraded: " + hb.Degraded
	}
	return daemonJSON{Alive: d.Alive(now), HeartbeatAge: &age, Watching: &watching}
}

func statusEntry(w *world, r *baseline.Record) statusEntryJSON {
	e := statusEntryJSON{ID: r.ID, Scope: r.Scope, Kind: claude.CandidateKind(r.Kind, r.Name), Status: string(baseline.StatusOf(r, r.Digest, r.Verdict))}
	if r.Halt != nil {
		e.Halt = r.Halt.Reason
	}
	if r.Told > 0 {
		e.Told, e.ToldSince = r.Told, &r.ToldSince
	}
	if !r.Removed {
		e.Anomalies = r.Anomalies
	}
	if r.Removed {
		e.Status = "removed"
	}
	if n, ok := w.display(string(r.Root), r.Kind, r.Name); ok {
		e.Name = &n
	}
	if r.Verdict != nil {
		v := r.Verdict.Verdict
		e.Verdict = &v
	}
	return e
}

// statusFilesShown is how many changed files of one entry status names;
// --json has them all.
const statusFilesShown = 5

// printStatusChanges lists each entry's changed files, one a line, each
// path shown the one way (reconcile's Files), with its class.
func printStatusChanges(w io.Writer, out *statusJSON) {
	var rows []string
	for _, l := range [][]statusEntryJSON{out.Pending, out.Adverse, out.Unvetted, out.Safe} {
		for _, e := range l {
			for i, c := range e.Changes {
				if i == statusFilesShown {
					rows = append(rows, fmt.Sprintf("  %s\tand %d more (skillwire diff %s)\n", e.ID, len(e.Changes)-i, e.ID))
					break
				}
				class := c.Class
				if c.Source != nil {
					class += " by " + *c.Source
				}
				rows = append(rows, fmt.Sprintf("  %s\t%s\t%s\t%s\n", e.ID, c.Change, c.Path, class))
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "changed files since the reviewed (else first-use) version (%d):\n", len(rows))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		io.WriteString(tw, r)
	}
	tw.Flush()
}

func printStatus(s *streams, out *statusJSON) {
	if !out.HooksInstalled {
		fmt.Fprintln(s.out, "hooks: skillwire's hooks are not installed: no session is told anything and nothing is gated; run: skillwire hook install (or sudo skillwire hook install --managed --managed-mods-only)")
	}
	printMods(s.out, out)
	fmt.Fprintln(s.out, "later sessions: "+out.LaterSessions.Note)
	printHooksOff(s.out, out.HooksOff)
	printInstallRecord(s.out, out.InstallRecord)
	if i := out.HooksIncomplete; i != nil {
		fmt.Fprintf(s.out, "hooks incomplete: %s lacks skillwire's %s hook(s): what they would see goes unseen; %s\n", i.Path, strings.Join(i.Missing, ", "), i.Advice)
	}
	fmt.Fprintf(s.out, "baseline: %s\n", out.Baseline)
	if out.LastStartUnrecorded != nil {
		fmt.Fprintln(s.out, "last session start: "+*out.LastStartUnrecorded)
	}
	switch d := out.Daemon; {
	case d.HeartbeatAge == nil:
		fmt.Fprintln(s.out, "daemon: never ran")
	case d.Alive:
		fmt.Fprintf(s.out, "daemon: alive, watching %s\n", *d.Watching)
	default:
		fmt.Fprintf(s.out, "daemon: not running (last heartbeat %.0fs ago)\n", *d.HeartbeatAge)
	}
	if out.Error != "" {
		fmt.Fprintf(s.err, "skillwire: %s\n", out.Error)
	}
	for _, l := range []struct {
		title string
		list  []statusEntryJSON
	}{{"pending review", out.Pending}, {"adverse verdicts", out.Adverse}, {"anomalies", out.Anomalous},
		{"changed since first use, never reviewed", out.Changed}, {"unvetted", out.Unvetted}, {"vetted safe", out.Safe}} {
		if len(l.list) == 0 {
			continue
		}
		fmt.Fprintf(s.out, "%s (%d):\n", l.title, len(l.list))
		tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
		for _, e := range l.list {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s", e.ID, e.Scope, e.Kind, displayName(e.Name), e.Status, orDash(e.Verdict), reasonsOrDash(e.Anomalies))
			if e.Told > 0 {
				fmt.Fprintf(tw, "\ttold %d time(s) since %s", e.Told, e.ToldSince.UTC().Format(time.DateOnly))
			}
			if e.Halt != "" {
				fmt.Fprintf(tw, "\thalted: %s", e.Halt)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	printStatusChanges(s.out, out)
	if len(out.Gate) > 0 {
		fmt.Fprintf(s.out, "gate, recent asks and denies (%d):\n", len(out.Gate))
		for _, n := range out.Gate {
			fmt.Fprintf(s.out, "  %s  %s\n", n.At.UTC().Format(time.RFC3339), defang(n.Text))
		}
	}
}
