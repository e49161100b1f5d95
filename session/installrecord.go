package session

import (
	"context"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/pluginrecord"
	"github.com/skillwire/skillwire/events"
)

// Claude Code records what it installed in installed_plugins.json. Each
// session start checks it against each plugin's folder
// (pluginrecord.Facts). A disagreement stands while the folder and the
// record stay as they are. So it is told in every session and never
// consumed.

// maxRecordLines and recordBudget bound what the install record's
// findings take of the advisory. The rest are counted, never dropped
// unsaid. The items keep the remainder of textBudget.
const (
	maxRecordLines = 3
	recordBudget   = 1800
)

// recordCheck is the install-record check of one session start, run
// beside the walk. It reads each managed plugin's folder. That cost adds
// to the start only where it outlasts the walk.
type recordCheck struct {
	done  chan struct{}
	facts []config.Fact
	ok    bool // it finished without a panic
}

// startRecordCheck starts check (pluginrecord.Facts); nil
// for none.
func startRecordCheck(check func() []config.Fact) *recordCheck {
	if check == nil {
		return nil
	}
	c := &recordCheck{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		// A record that makes the check fail is not checked, and told so:
		// it never takes the session start down with it.
		defer func() { _ = recover() }()
		c.facts = check()
		c.ok = true
	}()
	return c
}

// recordChecker is the install-record check of p, nil when p names no
// configuration directory.
func recordChecker(p claude.Places) func() []config.Fact {
	if p.Config == "" {
		return nil
	}
	return func() []config.Fact { return pluginrecord.Facts(p) }
}

// wait is what the check found. late: it failed, or did not finish
// before ctx ended. Then what it would have said is unknown, and told.
func (c *recordCheck) wait(ctx context.Context) (facts []config.Fact, late bool) {
	if c == nil {
		return nil, false
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		select {
		case <-c.done:
		default:
			return nil, true
		}
	}
	if !c.ok {
		return nil, true
	}
	fs := slices.Clone(c.facts)
	slices.SortStableFunc(fs, func(a, b config.Fact) int { return a.Rank() - b.Rank() })
	return fs, false
}

// recordLate is the advisory's line for a check that did not finish.
const recordLate = "- install record not checked: skillwire could not compare Claude Code's installed_plugins.json with the plugins' folders within this session start's time, so whether a plugin's files are what the client installed is unknown; run skillwire status"

// recordLines are the advisory's lines of the install record's findings,
// dangerous first, each escaped by config.Fact.String. At most
// maxRecordLines fit within recordBudget. The rest are one counted line.
func recordLines(in Input) []string {
	var lines []string
	if in.InstallRecordLate {
		lines = append(lines, recordLate)
	}
	size, held := 0, 0
	for _, f := range in.InstallRecord {
		if len(lines) == maxRecordLines || size > recordBudget {
			held++
			continue
		}
		l := "- differs from Claude Code's install record, told every session while it stands: " + f.String()
		if size+len(l)+1 > recordBudget {
			size, held = recordBudget+1, held+1 // told in order: none after one held
			continue
		}
		size += len(l) + 1
		lines = append(lines, l)
	}
	if held > 0 {
		lines = append(lines, "- "+count(held, "more disagreement", "more disagreements")+" of a plugin's folder with Claude Code's install record; see skillwire status")
	}
	return lines
}

// recordPlugins counts the plugin installs the findings are about.
func recordPlugins(fs []config.Fact) int {
	seen := map[[2]string]bool{}
	for _, f := range fs {
		seen[[2]string{f.Name, f.Command}] = true
	}
	return len(seen)
}

// recordUnchecked is the check word of a fleet finding that the install
// record was not checked in time.
const recordUnchecked = "not checked"

// recordEvents are the fleet's findings of the install record, one per
// fact. A fact is about the cached version its installPath names, by id,
// when the session observed it. Else it is about the install, by its
// record. A check that did not finish adds one about cfg's
// installed_plugins.json.
func recordEvents(origin events.Origin, in *Input, cfg string) []events.Event {
	var out []events.Event
	if in.InstallRecordLate {
		c := events.Candidate{Kind: claude.KindSettings, Scope: string(claude.Global), Name: "installed_plugins.json", Path: cfg + "/plugins/installed_plugins.json"}
		out = append(out, events.InstallRecord(origin, c, recordUnchecked, strings.TrimPrefix(recordLate, "- ")))
	}
	sts := in.Standings
	for _, f := range in.InstallRecord {
		c := events.Candidate{Kind: claude.KindPlugin, Scope: string(claude.Global), Path: f.Command}
		if at := strings.LastIndexByte(f.Name, '@'); at > 0 && anomaly.Gate([]byte(f.Name[:at])) && anomaly.Gate([]byte(f.Name[at+1:])) {
			c.Name = f.Name
		}
		for i := range sts {
			st := &sts[i]
			if st.Root.Kind == claude.Plugins && st.Root.Path+"/"+string(st.Name) == f.Command {
				c = fleetCandidate(st)
				break
			}
		}
		out = append(out, events.InstallRecord(origin, c, f.Type, f.String()))
	}
	return out
}
