package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
)

// maxListed is how many candidates one advisory names; the rest are
// counted per category, and deltas not named are held over, not consumed.
const maxListed = 8

// advisory is what the SessionStart hook says, and which standings it
// consumes once the text was delivered.
type advisory struct {
	text    string
	consume []baseline.Standing
	events  []baseline.Event // change events told, dropped once delivered
}

// category ranks what an advisory lists: real changes first, so that
// recurring anomalies can never crowd one out.
type category int

const (
	catChanged category = iota
	catNew
	catRemoved
	catRestored
	catAdverse
	catAnomalous
	numCategories
)

var categoryWords = [numCategories]string{"changed since the last session", "new since the last session",
	"removed since the last session", "modified since the last session and since restored",
	"under an adverse verdict", "not fully observable"}

var categoryCounts = [numCategories]string{"changed", "new", "removed", "modified and restored",
	"under an adverse verdict", "not fully observable"}

type advItem struct {
	cat    category
	st     *baseline.Standing
	delta  bool
	events []baseline.Event
}

// buildAdvisory turns a comparison into text built only from fixed
// templates, display-gated names and minted ids: no byte a tree's author
// chose reaches the model unless it passed the gate. storeProblem, when
// set, says why there was nothing to compare with.
// events are the daemon's change events: a candidate that changed and came
// back between two sessions is unchanged to a comparison, and only its
// events tell.
func buildAdvisory(obs []baseline.Observation, sts []baseline.Standing, events []baseline.Event, bootstrap bool, storeProblem string) advisory {
	byID := map[string][]baseline.Event{}
	for _, e := range events {
		byID[e.ID] = append(byID[e.ID], e)
	}
	var lines []string
	var adv advisory
	if storeProblem != "" {
		lines = append(lines, "skillwire could not compare with its store ("+storeProblem+"): what changed since the last session is unknown.")
	}
	if bootstrap {
		n := 0
		for i := range sts {
			if sts[i].State == baseline.New && sts[i].Digest() != nil {
				n++
				adv.consume = append(adv.consume, sts[i])
			}
		}
		lines = append(lines, fmt.Sprintf("skillwire first run: %d skill(s), agent(s) and command(s) accepted as the baseline on first use, without review.", n))
	}
	for _, o := range obs {
		if len(o.Walk.Anomalies) > 0 {
			lines = append(lines, fmt.Sprintf("The %s %s directory could not be listed (%s).", o.Root.Scope, o.Root.Kind, joinReasons(o.Walk.Anomalies)))
		}
	}

	var items []advItem
	for i := range sts {
		st := &sts[i]
		deltaCat, isDelta := category(0), false
		if storeProblem == "" && !bootstrap {
			switch {
			case st.State == baseline.Changed:
				deltaCat, isDelta = catChanged, true
			case st.State == baseline.New && st.Digest() != nil:
				deltaCat, isDelta = catNew, true
			case st.State == baseline.Removed:
				deltaCat, isDelta = catRemoved, true
			}
		}
		evs := byID[st.ID]
		switch {
		case isDelta:
			items = append(items, advItem{cat: deltaCat, st: st, delta: true, events: evs})
		case len(evs) > 0 && st.State == baseline.Unchanged:
			items = append(items, advItem{cat: catRestored, st: st, events: evs})
		case st.Verdict != nil && baseline.Adverse(st.Verdict.Verdict) && st.State != baseline.Removed:
			items = append(items, advItem{cat: catAdverse, st: st})
		case st.Observed != nil && len(st.Observed.Anomalies()) > 0:
			items = append(items, advItem{cat: catAnomalous, st: st})
		}
	}
	// Stable by category, keeping scan order within one.
	var ordered []advItem
	for c := category(0); c < numCategories; c++ {
		for _, it := range items {
			if it.cat == c {
				ordered = append(ordered, it)
			}
		}
	}
	var unlisted [numCategories]int
	for i, it := range ordered {
		if i >= maxListed {
			unlisted[it.cat]++
			continue
		}
		line := "- " + categoryWords[it.cat] + ": " + describe(it.st)
		if it.cat == catRestored {
			line += ", first modified at " + it.events[0].At.UTC().Format(time.RFC3339)
		}
		lines = append(lines, line)
		if it.delta {
			adv.consume = append(adv.consume, *it.st)
		}
		adv.events = append(adv.events, it.events...)
	}
	var more []string
	for c, n := range unlisted {
		if n > 0 {
			more = append(more, fmt.Sprintf("%d more %s", n, categoryCounts[c]))
		}
	}
	if len(more) > 0 {
		lines = append(lines, "Not listed here: "+strings.Join(more, ", ")+".")
	}
	if len(lines) == 0 {
		return advisory{}
	}
	lines = append(lines, "These are observations by skillwire, a file integrity tripwire. Details: skillwire status")
	adv.text = strings.Join(lines, "\n")
	return adv
}

var kindWord = map[claude.Kind]string{claude.Skills: "skill", claude.Agents: "agent", claude.Commands: "command"}

// describe names a candidate for the advisory: its gated name in quotes,
// its id, its verdict and what could not be observed.
func describe(st *baseline.Standing) string {
	var b strings.Builder
	b.WriteString(string(st.Root.Scope))
	b.WriteByte(' ')
	b.WriteString(kindWord[st.Root.Kind])
	if anomaly.Gate(st.Name) {
		fmt.Fprintf(&b, " %q", st.Name)
	} else {
		b.WriteString(" (name hidden)")
	}
	if st.ID != "" {
		b.WriteString(" id " + st.ID)
	}
	if v := st.Verdict; v != nil && baseline.Adverse(v.Verdict) {
		b.WriteString(", verdict " + v.Verdict)
	}
	if st.Observed != nil {
		if rs := walkerReasons(st.Observed); len(rs) > 0 {
			b.WriteString(", not fully observable: " + joinReasons(rs))
		}
	}
	return b.String()
}
