package review

import (
	"cmp"
	"context"
	"slices"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/provenance"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/findings"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
)

// Risk orders what a person reviews first. A lower risk comes first.
type Risk uint8

const (
	RiskMod          Risk = iota // a hooks module: code the client loads into itself
	RiskHooks                    // hooks and helpers: commands the client runs
	RiskMCP                      // MCP servers: programs and endpoints the model calls
	RiskPermissions              // permission rules and allowed-tools widened
	RiskScripts                  // files that run: workflows, executables
	RiskInstructions             // text the model reads
)

var riskNames = [...]string{"mod", "hooks", "mcp", "permissions", "scripts", "instructions"}

func (r Risk) String() string { return riskNames[r] }

// QueueConfig is what the review queue reads.
type QueueConfig struct {
	// Store is read only.
	Store baseline.Options
	// Roots are the roots watched now. A record of another root is not
	// observed; it is listed with a fact saying so.
	Roots []claude.Root
	// Walk observes each item afresh.
	Walk walker.Config
	// Kept serves the content of kept versions, for the previous side.
	Kept history.Content
	// Places are where the install records are read, for provenance.
	// The zero value reads none.
	Places claude.Places
}

// Item is one candidate awaiting a person's review, as it is on disk now.
type Item struct {
	ID string
	// Digest is what a verdict on this item binds. nil: the observation
	// was partial, and only SUSPECT or BLOCK can be recorded.
	Digest *snapshot.Hash
	Kind   string
	Scope  claude.Scope
	// Name is shown escaped; "" when the display gate hides it.
	Name string
	// Status is "pending" (changed since a SAFE review) or "unvetted".
	Status     string
	Risk       Risk
	Facts      []string
	Findings   []findings.Finding
	Provenance []string

	Root    claude.Root
	RawName []byte
	// From is the version the diff and the findings that compare
	// (new-host, tools-widened, new-executable) start from: the one a
	// SAFE verdict vouched for. nil: never reviewed, so the whole is
	// shown and all of it is new. A first-use version no person saw is
	// no start: it is told as a fact.
	From *baseline.Version
	// Observed is the walk the digest is of. Forms are the canonical
	// forms the store keeps, and the one observed.
	Observed *walker.Candidate
	Forms    [][]byte
	stage    *history.Stage
	firstUse *snapshot.Hash
}

// Queue lists the pending and unvetted candidates, each observed afresh,
// by risk, then pending before unvetted, then by findings, then id. The
// store is read in one view and closed before any walk.
func Queue(ctx context.Context, c QueueConfig) ([]*Item, error) {
	var items []*Item
	err := baseline.View(c.Store, func(tx *baseline.Tx) error {
		rep, err := tx.Report()
		if err != nil {
			return err
		}
		for _, l := range []struct {
			status string
			recs   []*baseline.Record
		}{{"pending", rep.Pending}, {"unvetted", rep.Unvetted}} {
			for _, r := range l.recs {
				if r.Removed {
					continue
				}
				it := &Item{ID: r.ID, Kind: claude.CandidateKind(r.Kind, r.Name), Scope: r.Scope, Status: l.status, RawName: r.Name}
				root, ok := rootOf(c.Roots, r)
				if !ok {
					it.Facts = append(it.Facts, "its root is not watched now: not observed")
					items = append(items, it)
					continue
				}
				it.Root = root
				if it.From, err = history.From(tx, root, r.Name, r.ID); err != nil {
					return err
				}
				if it.From != nil && it.From.Verdict != verdict.Safe {
					it.firstUse = &it.From.Digest
					it.From = nil
				}
				it.Forms = [][]byte{tx.Extract(r.ID), tx.ReviewedExtract(r.ID)}
				items = append(items, it)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if it.Root.Path != "" {
			it.Observe(ctx, c)
			// The content staged is dropped: many items must not hold it
			// all at once. Observe again before Diff.
			it.stage = nil
		}
	}
	slices.SortStableFunc(items, func(a, b *Item) int {
		return cmp.Or(cmp.Compare(a.Risk, b.Risk), cmp.Compare(a.Status, b.Status), cmp.Compare(len(b.Findings), len(a.Findings)), cmp.Compare(a.ID, b.ID))
	})
	return items, nil
}

func rootOf(roots []claude.Root, r *baseline.Record) (claude.Root, bool) {
	for _, root := range roots {
		if root.Path == string(r.Root) && root.Kind == r.Kind && root.Holds(r.Name) {
			return root, true
		}
	}
	return claude.Root{}, false
}

// Observe walks the item afresh: its digest, facts, findings, provenance
// and risk are those of what is on disk now.
func (it *Item) Observe(ctx context.Context, c QueueConfig) {
	cfg := c.Walk
	it.stage = history.Attach(&cfg)
	o := walker.ObserveIn(ctx, it.Root.Spec(), it.RawName, cfg)
	it.Observed = &o
	it.Digest = baseline.DigestOf(&o)
	it.Kind = claude.KindOf(it.Root.Kind, it.RawName, &o.Manifest)
	it.Name, _ = it.Root.Display(it.RawName)
	if len(it.Forms) > 2 {
		it.Forms = it.Forms[:2]
	}
	it.Forms = append(it.Forms, o.Canonical)

	var fs []config.Fact
	if o.Canonical != nil {
		fs = config.Facts(it.Forms[1], o.Canonical)
	}
	it.Facts = it.Facts[:0]
	for _, f := range fs {
		it.Facts = append(it.Facts, f.String())
	}
	for _, r := range walker.Reasons(o.Anomalies()) {
		it.Facts = append(it.Facts, "anomaly: "+string(r))
	}
	if it.firstUse != nil {
		it.Facts = append(it.Facts, "never reviewed: first used as "+it.firstUse.String()+", accepted without review")
	}
	if o.Partial() {
		it.Facts = append(it.Facts, "partial: the walk's budget cut it short, so no digest; only SUSPECT or BLOCK can be recorded")
	}

	cur := it.files(&o.Manifest, func(h snapshot.Hash, size int64) ([]byte, bool, error) {
		b, ok := it.stage.Get(h)
		return b, ok, nil
	})
	var prev []findings.File
	if it.From != nil {
		prev = it.files(&it.From.Manifest, c.Kept)
	}
	it.Findings = findings.Of(prev, cur)
	if c.Places.Config != "" {
		it.Provenance = provenance.Of(c.Places, it.Root, it.RawName, cur)
	}
	it.Risk = riskOf(it, fs)
}

// files are a manifest's regular files with the content served.
func (it *Item) files(m *snapshot.Manifest, get history.Content) []findings.File {
	return filesOf(m, get, it.RawName)
}

// filesOf are m's regular files with the content get serves
// (findings.FilesOf); a file not served has no Data. A one-file
// candidate's file is named name.
func filesOf(m *snapshot.Manifest, get history.Content, name []byte) []findings.File {
	if get == nil {
		return findings.FilesOf(m, nil, name)
	}
	sizes := make(map[snapshot.Hash]int64, len(m.Entries))
	for _, e := range m.Entries {
		sizes[e.Hash] = e.Size
	}
	return findings.FilesOf(m, func(h snapshot.Hash) ([]byte, bool) {
		b, ok, err := get(h, sizes[h])
		return b, ok && err == nil
	}, name)
}

// DiffFindings are the findings of a diff: the added and modified files
// of to, against all of from (nil: from nothing). old and new serve the
// two sides' content.
func DiffFindings(from, to *snapshot.Manifest, old, new history.Content, name []byte, ds []history.FileDiff) []findings.Finding {
	changed := map[string]bool{}
	for _, d := range ds {
		if d.New != nil && d.New.Kind == snapshot.File {
			changed[string(d.RawPath)] = true
		}
	}
	var prev, cur []findings.File
	if from != nil {
		prev = filesOf(from, old, name)
	}
	for _, f := range filesOf(to, new, name) {
		p := string(f.Path)
		if len(f.Path) > 0 && len(to.Entries) > 0 && len(to.Entries[0].Path) == 0 && to.Entries[0].Kind == snapshot.File {
			p = "" // a one-file candidate's raw path
		}
		if changed[p] {
			cur = append(cur, f)
		}
	}
	return findings.Of(prev, cur)
}

func riskOf(it *Item, fs []config.Fact) Risk {
	r := RiskInstructions
	lower := func(to Risk) { r = min(r, to) }
	for _, f := range fs {
		switch f.Kind {
		case config.FactHooksModule:
			lower(RiskMod)
		case config.FactNewHook, config.FactHelperSet:
			lower(RiskHooks)
		case config.FactNewMCPServer, config.FactMCPServerChanged, config.FactEnableAllProjectMCP, config.FactMcpjsonServerEnabled:
			lower(RiskMCP)
		case config.FactPermissionsDefaultMode, config.FactPermissionRuleAdded, config.FactAdditionalDirectoryAdded, config.FactPermissionsChanged,
			config.FactToolAdded, config.FactToolsUnrestricted, config.FactDisallowedToolRemoved:
			lower(RiskPermissions)
		}
	}
	switch it.Kind {
	case claude.KindSettings:
		lower(RiskHooks)
	case claude.KindMCP:
		lower(RiskMCP)
	case claude.KindWorkflow:
		lower(RiskScripts)
	case claude.KindPlugin:
		// A plugin carries hooks and MCP servers in files of its own.
		for _, e := range it.observedEntries() {
			switch string(e.Path) {
			case "hooks/hooks.json":
				lower(RiskHooks)
			case ".mcp.json":
				lower(RiskMCP)
			}
		}
	}
	if findings.Count(it.Findings, findings.ToolsWidened) > 0 {
		lower(RiskPermissions)
	}
	if findings.Count(it.Findings, findings.NewExecutable) > 0 {
		lower(RiskScripts)
	}
	for _, e := range it.observedEntries() {
		if e.Kind == snapshot.File && e.Mode&0o111 != 0 {
			lower(RiskScripts)
		}
	}
	return r
}

func (it *Item) observedEntries() []snapshot.Entry {
	if it.Observed == nil {
		return nil
	}
	return it.Observed.Manifest.Entries
}

// Diff is the item's diff since its From version (whole when nil), each
// file's text escaped by history.Diff. old serves kept versions. The
// item must have been observed since Queue (Observe), or the side on
// disk shows as not kept.
func (it *Item) Diff(old history.Content) ([]history.FileDiff, error) {
	if old == nil {
		old = func(snapshot.Hash, int64) ([]byte, bool, error) { return nil, false, nil }
	}
	var from *snapshot.Manifest
	if it.From != nil {
		from = &it.From.Manifest
	}
	cur := func(h snapshot.Hash, size int64) ([]byte, bool, error) {
		if b, ok := it.stage.Get(h); ok {
			return b, true, nil
		}
		return old(h, size)
	}
	roots := ConfigRoots(it.Root, it.RawName, from, &it.Observed.Manifest)
	names := it.Root.BoundNames(it.RawName, it.Forms...)
	return history.Diff(from, &it.Observed.Manifest, history.Canonical(old, roots, it.Forms...), history.Canonical(cur, roots, it.Forms...), names)
}

// ConfigRoots are the hashes of the file entries of ms, for a
// configuration file. The content kept of them is its form.
func ConfigRoots(root claude.Root, name []byte, ms ...*snapshot.Manifest) []snapshot.Hash {
	if !claude.IsForm(root.Kind, name) {
		return nil
	}
	var hs []snapshot.Hash
	for _, m := range ms {
		if m != nil && len(m.Entries) > 0 && len(m.Entries[0].Path) == 0 && m.Entries[0].Kind == snapshot.File {
			hs = append(hs, m.Entries[0].Hash)
		}
	}
	return hs
}
