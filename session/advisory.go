package session

import (
	"errors"
	"fmt"
	"github.com/skillwire/skillwire/session/unrecorded"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/snapshot/findings"
	"github.com/skillwire/skillwire/walker"
)

// maxListed is how many candidates one advisory names; the rest are
// counted per category, and deltas not named are held over, not consumed.
const maxListed = 8

// Input is what one session start observed and what the store said of it.
type Input struct {
	// HooksOff are the settings files of other projects that switch
	// skillwire's hooks off there: where its hooks run, a session is told.
	HooksOff []settings.HooksOff
	// Incomplete is skillwire's own install when it lacks hooks
	// (settings.IncompleteIn): told every session until installed again.
	Incomplete *settings.Incomplete
	// ModPolicy is what holds against a mod here (settings.ModPolicyOf).
	// Unless it holds, a mod present is told as what skillwire cannot
	// hold.
	ModPolicy settings.ModPolicy
	// agent are the lines mainAgentLines gives, made once by build.
	agent     agentLines
	Obs       []baseline.Observation
	Standings []baseline.Standing
	// Events are the daemon's change events: a candidate that changed and
	// came back between two sessions is unchanged to a comparison, and
	// only its events tell.
	Events []cache.Event
	// Bootstrap: the store's first run was never delivered, so this is the
	// first use and every candidate is accepted as the baseline.
	Bootstrap bool
	// StoreProblem, when set, says why there was nothing to compare with.
	StoreProblem string
	// Unrecorded, when set, is the last start that told and did not record.
	Unrecorded *unrecorded.Mark
	// Reconciled holds, per candidate id, its file changes reconciled with
	// the audit logs (readSubjects, then reconcile.Subjects.Reconcile).
	Reconciled map[string]*reconcile.Reconciliation
	// AuditProblem, when set, says why the audit logs could not be read:
	// every change then reads as not announced.
	AuditProblem string
	// Auto are the auto-accept outcomes applied this session. An accepted
	// one is told from its record's untold marker until an advisory naming
	// it is delivered; halted ones are told as pending, every session.
	Auto []AutoOutcome
	// Renames pair a removed candidate reviewed SAFE with the new one that
	// replaced it (DetectRenames): told as one pending rename.
	Renames []baseline.Rename
	// Replaces are, by id, the versions plugin versions replace
	// (DetectVersions): a new version of one reviewed SAFE is told pending.
	Replaces map[string]*Replaced
	// Instructions are the instruction files loaded with changed bytes
	// since they were last told (the InstructionsLoaded hook), oldest first.
	Instructions []baseline.InstructionChange
	// InstallRecord are where a plugin's folder disagrees with Claude
	// Code's installed_plugins.json (pluginrecord.Facts),
	// dangerous first: told in every session while they stand, never
	// consumed. InstallRecordLate: the check did not finish in time, so
	// what it would say is unknown, and told.
	InstallRecord     []config.Fact
	InstallRecordLate bool
	// Findings are, by id, the content findings of each candidate new or
	// changed since its reference, counted by kind (contentFindings).
	Findings map[string][]findings.KindCount
}

// Advisory is what a session is told, and what the store may consume once
// the text was delivered: nothing is consumed that was not told.
type Advisory struct {
	Text string
	// Notice is the one line the person is shown (the hook's
	// systemMessage): the counts that matter and what to run; "" when
	// Text is.
	Notice  string
	Consume []baseline.Standing
	Events  []cache.Event // change events told, dropped once delivered
	// Told are the pending candidates this advisory repeats: each delivery
	// counts one more tell ("told N times since DATE").
	Told []string
	// FirstRun: delivering this advisory is the store's first run, even
	// when it accepted nothing.
	FirstRun bool
	// AutoTold are the auto-accepts this advisory names, consumed once
	// delivered.
	AutoTold []baseline.AutoTell
	// Renames told: the review is carried over once delivered.
	Renames []baseline.Rename
	// Versions told pending: the replaced version's review is carried
	// over once delivered.
	Versions []baseline.Rename
	// Instructions told: consumed once delivered.
	Instructions []baseline.InstructionChange
}

// Apply records in the store what a delivered advisory told: the deltas it
// consumed (each only if no other session advanced it meanwhile), the
// events it told, one more tell of each pending candidate, and the first
// run. Call it only after the text was delivered.
func (a *Advisory) Apply(tx *baseline.Tx, now time.Time) error {
	if _, err := tx.Advance(a.Consume, a.FirstRun, now); err != nil {
		return err
	}
	for _, rn := range a.Renames {
		if err := tx.Reviews().Carry(rn, now); err != nil {
			return err
		}
	}
	for _, rn := range a.Versions {
		if err := tx.Reviews().CarryVersion(rn, now); err != nil {
			return err
		}
	}
	if _, err := tx.Events().Drop(a.Events); err != nil {
		return err
	}
	if err := tx.Reviews().MarkTold(a.Told, now); err != nil {
		return err
	}
	if err := tx.Reviews().MarkAutoTold(a.AutoTold); err != nil {
		return err
	}
	if err := tx.Instructions().Drop(a.Instructions); err != nil {
		return err
	}
	if a.FirstRun {
		return tx.MarkFirstRun(now)
	}
	return nil
}

// Applies reports whether delivering a changes the store.
func (a *Advisory) Applies() bool {
	return len(a.Consume) > 0 || len(a.Events) > 0 || len(a.Told) > 0 || len(a.AutoTold) > 0 || len(a.Renames) > 0 ||
		len(a.Versions) > 0 || len(a.Instructions) > 0 || a.FirstRun
}

// category ranks what an advisory lists: a person's adverse verdict first,
// so that no number of new or changed candidates can crowd a BLOCK out of
// the list; then real changes, so that recurring anomalies can never crowd
// one out.
type category int

const (
	catAdverse category = iota
	catPending
	catAutoAccepted
	catChanged
	catNew
	catRemoved
	catRestored
	catAnomalous
	numCategories
)

var categoryWords = [numCategories]string{"under an adverse verdict", "changed since it was reviewed SAFE-TO-PROPOSE, pending a new review",
	"changed since it was reviewed SAFE-TO-PROPOSE, auto-accepted within the bounds a person set", "changed since the last session", "new since the last session",
	"removed since the last session", "modified since the last session and since restored",
	"not fully observable"}

var categoryCounts = [numCategories]string{"under an adverse verdict", "pending review", "auto-accepted", "changed", "new", "removed", "modified and restored",
	"not fully observable"}

type item struct {
	cat    category
	st     *baseline.Standing
	delta  bool // a change of state the delivery consumes
	events []cache.Event
	text   string // its lines in the advisory
	auto   string // an untold auto-accept's text
	// from is the removed candidate a rename replaced, consumed with st.
	from *baseline.Standing
}

// build turns a comparison into text built only from fixed templates,
// display-gated names and minted ids: no byte a tree's author chose reaches
// the model unless it passed the gate.
func build(in Input) Advisory {
	in.agent = mainAgentLines(in) // told in the text and counted in the notice: read once
	var adv Advisory
	if in.Bootstrap {
		adv.Consume = accepted(in.Standings)
		adv.FirstRun = in.StoreProblem == ""
	}
	items := classify(in)
	for i := range items {
		items[i].text = itemText(in, &items[i])
	}
	records := recordLines(in)
	told, held := limit(items, textBudget-textSize(records))
	var instr []string
	var instrHeld int
	adv.Instructions, instr, instrHeld = limitInstructions(in.Instructions, told)
	acc := acceptedByKind(adv.Consume) // told before the deltas join Consume
	adv.Text = render(in, acc, records, told, held, instr, instrHeld)
	adv.Notice = notice(in, acc, items, len(in.Instructions))
	for _, it := range told {
		if it.delta {
			adv.Consume = append(adv.Consume, *it.st)
		}
		if it.from != nil {
			adv.Consume = append(adv.Consume, *it.from)
			adv.Renames = append(adv.Renames, baseline.Rename{From: it.from.ID, To: it.st.ID})
		}
		if it.cat == catPending {
			adv.Told = append(adv.Told, it.st.ID)
		}
		if r := in.Replaces[it.st.ID]; it.cat == catPending && r.carries(it.st) {
			adv.Versions = append(adv.Versions, baseline.Rename{From: r.Record.ID, To: it.st.ID})
		}
		if it.cat == catAutoAccepted {
			adv.AutoTold = append(adv.AutoTold, baseline.AutoTell{ID: it.st.ID, Text: it.auto})
		}
		adv.Events = append(adv.Events, it.events...)
	}
	if adv.Text == "" {
		return Advisory{}
	}
	return adv
}

// maxInstructions is how many changed instruction files one advisory
// names; the rest are counted and held over.
const maxInstructions = 3

// limitInstructions tells the oldest changed instruction files, at most
// maxInstructions and within what textBudget leaves after the items told,
// and counts the rest, which stay untold.
func limitInstructions(cs []baseline.InstructionChange, told []item) (tell []baseline.InstructionChange, lines []string, held int) {
	size := 0
	for _, it := range told {
		size += len(it.text) + 1
	}
	for _, c := range cs {
		line := instructionText(c)
		if len(tell) == maxInstructions || size+len(line)+1 > textBudget {
			held++
			continue
		}
		size += len(line) + 1
		tell, lines = append(tell, c), append(lines, line)
	}
	return tell, lines, held
}

// instructionText is one changed instruction file's line: its gated name,
// its id, the memory type Claude Code reported, when it loaded.
func instructionText(c baseline.InstructionChange) string {
	name := "(name hidden)"
	if anomaly.Gate(c.Name) {
		name = fmt.Sprintf("%q", c.Name)
	}
	mem := ""
	switch c.Memory {
	case "User", "Project", "Local", "Managed":
		mem = " (" + c.Memory + ")"
	}
	return "- instruction file " + name + mem + " id " + c.ID +
		": loaded mid-session with content that differs from what skillwire last observed, at " + c.At.UTC().Format(time.RFC3339)
}

// accepted is what a first use accepts as the baseline: every new
// candidate fully observed.
func accepted(sts []baseline.Standing) []baseline.Standing {
	var out []baseline.Standing
	for i := range sts {
		if sts[i].State == baseline.New && sts[i].Digest() != nil {
			out = append(out, sts[i])
		}
	}
	return out
}

// kindWords are how a first run counts what it accepted, kind by kind, in
// this order; a kind not listed is counted as "other candidate".
var kindWords = []struct{ kind, one, many string }{
	{claude.KindSkill, "skill", "skills"}, {claude.KindAgent, "agent", "agents"}, {claude.KindCommand, "command", "commands"},
	{claude.KindPlugin, "plugin", "plugins"}, {claude.KindSettings, "settings file", "settings files"},
	{claude.KindMCP, "MCP configuration", "MCP configurations"}, {claude.KindInstructions, "instruction file", "instruction files"},
	{claude.KindOutputStyle, "output style", "output styles"}, {claude.KindWorkflow, "workflow", "workflows"},
}

// acceptedByKind says what a first run accepted, counted by kind:
// "12 skills, 3 agents, 1 MCP configuration"; "nothing" for none.
func acceptedByKind(sts []baseline.Standing) string {
	n := map[string]int{}
	for i := range sts {
		n[KindOf(&sts[i])]++
	}
	var parts []string
	for _, k := range kindWords {
		if n[k.kind] > 0 {
			parts = append(parts, count(n[k.kind], k.one, k.many))
			delete(n, k.kind)
		}
	}
	other := 0
	for _, c := range n {
		other += c
	}
	if other > 0 {
		parts = append(parts, count(other, "other candidate", "other candidates"))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// underAdverse reports whether st is under a person's adverse verdict and still there.
func underAdverse(st *baseline.Standing) bool {
	return st.Verdict != nil && verdict.Adverse(st.Verdict.Verdict) && st.State != baseline.Removed
}

// classify picks every standing with something to say, ordered by
// category and, within one, as scanned. Deltas exist only against a usable,
// non-empty store: without one there is nothing they are relative to.
func classify(in Input) []item {
	byID := map[string][]cache.Event{}
	for _, e := range in.Events {
		byID[e.ID] = append(byID[e.ID], e)
	}
	compared := in.StoreProblem == "" && !in.Bootstrap
	var items []item
	byStanding := map[string]*baseline.Standing{}
	for i := range in.Standings {
		byStanding[in.Standings[i].ID] = &in.Standings[i]
	}
	renamedTo, renamedFrom := map[string]*baseline.Standing{}, map[string]bool{}
	for _, rn := range in.Renames {
		if from, to := byStanding[rn.From], byStanding[rn.To]; compared && from != nil && to != nil &&
			from.State == baseline.Removed && to.State == baseline.New {
			renamedTo[rn.To], renamedFrom[rn.From] = from, true
		}
	}
	for i := range in.Standings {
		st := &in.Standings[i]
		evs := byID[st.ID]
		// A record made before the first delivered session (a verdict
		// recorded at once) is compared even then: first use accepts only
		// what the store never knew.
		compared := compared || in.StoreProblem == "" && st.Prior != nil
		// A change a SAFE review no longer covers is told in every session
		// until a person acts; an unreviewed change is told once.
		pending := compared && isPending(st)
		if from := renamedTo[st.ID]; from != nil {
			items = append(items, item{cat: catPending, st: st, delta: true, events: slices.Concat(evs, byID[from.ID]), from: from})
			continue
		}
		if renamedFrom[st.ID] {
			continue // told with the candidate that replaced it
		}
		if compared && in.Replaces[st.ID].carries(st) && st.Digest() != nil && !underAdverse(st) {
			// A new version of a plugin reviewed SAFE: pending that review.
			items = append(items, item{cat: catPending, st: st, delta: true, events: evs})
			continue
		}
		if c, ok := deltaOf(st); compared && ok {
			switch {
			case underAdverse(st):
				c = catAdverse // a BLOCK that changed is still a BLOCK, listed first
			case pending:
				c = catPending
			}
			items = append(items, item{cat: c, st: st, delta: true, events: evs})
			continue
		}
		switch {
		case pending:
			items = append(items, item{cat: catPending, st: st, events: evs})
		case compared && untoldAuto(st) != "":
			items = append(items, item{cat: catAutoAccepted, st: st, events: evs, auto: untoldAuto(st)})
		case len(evs) > 0 && st.State == baseline.Unchanged:
			items = append(items, item{cat: catRestored, st: st, events: evs})
		case underAdverse(st):
			items = append(items, item{cat: catAdverse, st: st})
		case st.Observed != nil && len(st.Observed.Anomalies()) > 0:
			items = append(items, item{cat: catAnomalous, st: st})
		}
	}
	factsFirst(in, items)
	return items
}

// untoldAuto is the text of st's auto-accept not yet delivered, "" for none.
func untoldAuto(st *baseline.Standing) string {
	if st.Prior == nil || st.Prior.Auto == nil || st.State == baseline.Removed {
		return ""
	}
	return st.Prior.Auto.Untold
}

func isPending(st *baseline.Standing) bool {
	s := st.Status()
	return st.State != baseline.Removed && (s == baseline.StatusPending || s == baseline.StatusHalted)
}

func deltaOf(st *baseline.Standing) (category, bool) {
	switch {
	case st.State == baseline.Changed:
		return catChanged, true
	case st.State == baseline.New && st.Digest() != nil:
		return catNew, true
	case st.State == baseline.Removed:
		return catRemoved, true
	}
	return 0, false
}

// textBudget is what the listed items may take of hookio.MaxContext; the
// rest is for the fixed lines around them.
const textBudget = hookio.MaxContext - 2000

// limit tells the first items, at most maxListed and within budget bytes,
// and holds the rest over, counted per category. A pending review told
// before yields lines to the one-time tells waiting behind it, up to half:
// pending reviews alone never keep a new or changed candidate unnamed.
func limit(items []item, budget int) (told []item, held [numCategories]int) {
	fresh := 0
	for _, it := range items {
		if it.delta || it.cat == catAutoAccepted || it.cat == catRestored {
			fresh++
		}
	}
	retold, retoldCap := 0, maxListed-min(fresh, maxListed/2)
	size, full := 0, false
	for _, it := range items {
		switch {
		case full || len(told) == maxListed || size+len(it.text)+1 > budget:
			full = true
		case toldBefore(it) && retold == retoldCap:
		default:
			if toldBefore(it) {
				retold++
			}
			size += len(it.text) + 1
			told = append(told, it)
			continue
		}
		held[it.cat]++
	}
	return told, held
}

// textSize is what lines take of the advisory, each with its newline.
func textSize(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}

// toldBefore reports whether it is a pending review already told, with no
// change since: told again, it says nothing new.
func toldBefore(it item) bool {
	return it.cat == catPending && !it.delta && it.from == nil && it.st.Prior != nil && it.st.Prior.Told > 0
}

// itemText is one item's lines: what it is, and for a change the summary
// of its reconciliation on a line of its own.
func itemText(in Input, it *item) string {
	line := "- " + categoryWords[it.cat] + ": " + describe(it.st, true)
	if it.cat == catAnomalous {
		// Said once: "not fully observable (symlink): …".
		if rs := walker.Reasons(it.st.Observed.Anomalies()); len(rs) > 0 {
			line = "- " + categoryWords[it.cat] + " (" + anomaly.Join(rs) + "): " + describe(it.st, false)
		}
	}
	if it.delta || it.cat == catPending {
		line += factsText(in, it.st, it.cat == catPending, textBudget-len(line)-itemReserve)
	}
	switch it.cat {
	case catRestored:
		line += ", first modified at " + it.events[0].At.UTC().Format(time.RFC3339)
	case catPending:
		if it.from != nil {
			line += ", renamed from " + oldName(it.from.Root.Kind, it.from.Name, it.from.ID)
		} else if it.st.Prior != nil {
			line += pendingNote(it.st.Prior)
		}
	case catAutoAccepted:
		line += "; " + it.auto
	}
	if rc := in.Reconciled[it.st.ID]; rc != nil {
		if sum := Summary(rc, it.st.ID); sum != "" {
			line += "\n  " + sum
		}
	}
	if t := findings.CountText(in.Findings[it.st.ID]); t != "" && (it.delta || it.cat == catPending) {
		line += "\n  " + t + " in its content, shown by skillwire review in a terminal"
	}
	return line
}

// render writes the advisory's lines, or "" when there is nothing to say.
func render(in Input, accepted string, records []string, told []item, held [numCategories]int, instr []string, instrHeld int) string {
	var lines []string
	if in.StoreProblem != "" {
		lines = append(lines, "skillwire could not compare with its store ("+in.StoreProblem+"): what changed since the last session is unknown.")
	}
	if in.Unrecorded != nil {
		lines = append(lines, in.Unrecorded.Words())
	}
	if in.Bootstrap {
		lines = append(lines, "skillwire first run: accepted "+accepted+" as the baseline on first use, without review.")
	}
	for _, o := range in.Obs {
		if len(o.Walk.Anomalies) > 0 {
			lines = append(lines, fmt.Sprintf("The %s %s directory could not be listed (%s).", o.Root.Scope, o.Root.Kind, anomaly.Join(o.Walk.Anomalies)))
		}
	}
	if in.AuditProblem != "" && len(in.Reconciled) > 0 {
		lines = append(lines, "The audit logs could not be read ("+in.AuditProblem+"): no change below counts as announced.")
	}
	for _, ls := range in.agent {
		lines = append(lines, ls...)
	}
	if n := unheldMods(in); n > 0 {
		lines = append(lines, modsUnheldLine(n, in.ModPolicy))
	}
	for _, h := range in.HooksOff {
		lines = append(lines, "- hooks off in another project: project settings "+anomaly.QuoteBytes([]byte(h.Path))+
			" set disableAllHooks, so Claude Code runs none of skillwire's hooks there (no advisory, no gate); "+h.Advice())
	}
	if i := in.Incomplete; i != nil {
		lines = append(lines, "- skillwire's hooks in "+anomaly.QuoteBytes([]byte(i.Path))+" lack "+strings.Join(i.Events(), ", ")+
			" (installed before they were added, or removed since): what those hooks would see goes unseen (a folder /add-dir adds is never judged without DirectoryAdded); "+i.Advice())
	}
	lines = append(lines, records...)
	for _, it := range told {
		lines = append(lines, it.text)
	}
	lines = append(lines, instr...)
	var more []string
	for c, n := range held {
		if n > 0 {
			more = append(more, fmt.Sprintf("%d more %s", n, categoryCounts[c]))
		}
	}
	if instrHeld > 0 {
		more = append(more, fmt.Sprintf("%d more instruction file(s) loaded with changed content", instrHeld))
	}
	if len(more) > 0 {
		lines = append(lines, "Not listed here: "+strings.Join(more, ", ")+".")
	}
	if len(lines) == 0 {
		return ""
	}
	lines = append(lines, anomaly.QuotedMark+" Details: skillwire status")
	return strings.Join(lines, "\n")
}

// pendingNote says how long a pending change has been told and, when
// auto-accept refused it, why (a fixed-template reason kept printable).
func pendingNote(r *baseline.Record) string {
	var b strings.Builder
	if r.Renamed != nil {
		b.WriteString(", renamed from " + oldName(r.Kind, r.Renamed.Name, r.Renamed.From))
	}
	switch {
	case r.Told == 1:
		b.WriteString(", told once since " + r.ToldSince.UTC().Format(time.DateOnly))
	case r.Told > 1:
		fmt.Fprintf(&b, ", told %d times since %s", r.Told, r.ToldSince.UTC().Format(time.DateOnly))
	}
	if r.Halt != nil {
		b.WriteString("; halted: " + r.Halt.Reason)
	}
	return b.String()
}

// oldName names the candidate a rename replaced in a root of kind k: its
// name as the client spells it, when it may be shown (claude.Display: a
// ".hidden-tools" skill too), and its id.
func oldName(k claude.Kind, name []byte, id string) string {
	s := "(name hidden)"
	if n, ok := claude.Display(k, name); ok {
		s = fmt.Sprintf("%q", n)
	}
	return s + " id " + id
}

// describe names a candidate for the advisory: its gated name in quotes,
// its id, its verdict and, with reasons, what could not be observed.
func describe(st *baseline.Standing, reasons bool) string {
	var b strings.Builder
	b.WriteString(string(st.Root.Scope))
	b.WriteByte(' ')
	b.WriteString(KindOf(st))
	switch name, ok := st.Root.Display(st.Name); {
	case ok:
		fmt.Fprintf(&b, " %q", name)
	case st.Root.Kind == claude.PluginSources && st.Root.SourcePlugin(st.Name) == nil:
		b.WriteString(" whose name skillwire cannot read") // the client may read one: any plugin's
	default:
		b.WriteString(" (name hidden)")
	}
	if st.ID != "" {
		b.WriteString(" id " + st.ID)
	}
	if v := st.Verdict; v != nil && verdict.Adverse(v.Verdict) {
		b.WriteString(", verdict " + v.Verdict)
	}
	if st.Observed != nil && reasons {
		if rs := walker.Reasons(st.Observed.Anomalies()); len(rs) > 0 {
			b.WriteString(", not fully observable: " + anomaly.Join(rs))
		}
	}
	return b.String()
}

// storeproblem says why a session could not be compared with the store,
// in words for the session.
func storeProblem(err error) string {
	switch h := baseline.HealthOf(err); {
	case h == baseline.Busy:
		return "busy: another skillwire process held it, so this session was not compared"
	case errors.Is(err, baseline.ErrAbsent):
		return "it could not be created"
	default:
		return "it is " + string(h) + "; run skillwire status"
	}
}
