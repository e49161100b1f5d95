package session

import (
	"fmt"
	"strings"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/snapshot/findings"
)

// The advisory goes to the model, the party a tree's author talks to. The
// person sees only the hook's systemMessage. So the person's line counts
// every item, told or held over, in fixed words, and says what to run. It
// holds no name, id or quoted text at all.

// noticeRun is what the notice tells the person to run.
const noticeRun = " — run `skillwire status`"

// noticeReview is what a first run that accepted something tells the
// person to run instead. The model's text keeps skillwire status: review
// refuses without a terminal.
const noticeReview = " — review them one at a time, riskiest first: skillwire review"

// notice is the person's one line for an advisory of items. It is ""
// when there is nothing to say.
func notice(in Input, accepted string, items []item, instructions int) string {
	var parts []string
	if in.StoreProblem != "" {
		parts = append(parts, "could not compare with its store")
	}
	if in.Unrecorded != nil {
		parts = append(parts, "its last session start was not recorded")
	}
	if in.Bootstrap {
		parts = append(parts, "first run, accepted "+accepted+" as the baseline without review")
	}
	for _, o := range in.Obs {
		if len(o.Walk.Anomalies) > 0 {
			parts = append(parts, "a directory could not be listed")
			break
		}
	}
	if in.AuditProblem != "" && len(in.Reconciled) > 0 {
		parts = append(parts, "the audit logs could not be read")
	}
	if in.Incomplete != nil {
		parts = append(parts, "skillwire's hooks are incomplete")
	}
	if n := len(in.HooksOff); n > 0 {
		parts = append(parts, count(n, "other project's settings switch skillwire's hooks off", "other projects' settings switch skillwire's hooks off"))
	}
	if unheldMods(in) > 0 {
		parts = append(parts, modsUnheldNotice(in.ModPolicy))
	}
	for i, ls := range in.agent {
		if len(ls) > 0 {
			parts = append(parts, agentNotices[i])
		}
	}
	var n [numCategories]int
	mods, blocked, suspect, hooks, servers, other := 0, 0, 0, 0, 0, 0
	var found []findings.KindCount
	for _, it := range items {
		switch {
		case it.cat != catAdverse:
			n[it.cat]++
		case it.st.Verdict != nil && it.st.Verdict.Verdict == verdict.Block:
			blocked++
		default:
			suspect++
		}
		if !it.delta && it.cat != catPending {
			continue
		}
		found = findings.Sum(found, in.Findings[it.st.ID])
		fs := toldFacts(in, it.st, it.cat == catPending)
		if len(fs) > 0 && fs[0].Kind == config.FactHooksModule { // toldFacts puts a mod's first
			mods++
		}
		for _, f := range fs {
			switch {
			case f.Kind == config.FactHooksModule:
			case f.Kind == config.FactNewHook:
				hooks++
			case f.Kind == config.FactNewMCPServer:
				servers++
			case f.Dangerous():
				other++
			}
		}
	}
	add := func(k int, one, many string) {
		if k > 0 {
			parts = append(parts, count(k, one, many))
		}
	}
	add(mods, modNotice, "mods"+modNotice[3:])
	add(blocked, "BLOCKed", "BLOCKed")
	add(suspect, "SUSPECT", "SUSPECT")
	add(recordPlugins(in.InstallRecord), "plugin that differs from Claude Code's install record", "plugins that differ from Claude Code's install record")
	if in.InstallRecordLate {
		parts = append(parts, "plugins not checked against Claude Code's install record in time")
	}
	add(n[catPending], "changed since review", "changed since review")
	add(hooks, "new hook in settings", "new hooks in settings")
	add(servers, "new MCP server", "new MCP servers")
	add(other, "other change that runs code or asks less", "other changes that run code or ask less")
	add(n[catAutoAccepted], "auto-accepted", "auto-accepted")
	add(n[catChanged], "changed", "changed")
	add(n[catNew], "new", "new")
	add(n[catRemoved], "removed", "removed")
	add(n[catRestored], "modified and restored", "modified and restored")
	add(n[catAnomalous], "not fully observable", "not fully observable")
	if t := findings.CountText(found); t != "" {
		parts = append(parts, t)
	}
	add(instructions, "instruction file loaded with changed content", "instruction files loaded with changed content")
	if len(parts) == 0 {
		return ""
	}
	run := noticeRun
	if in.Bootstrap && accepted != "nothing" {
		run = noticeReview
	}
	return "skillwire: " + strings.Join(parts, ", ") + run
}

// modNotice counts a mod first: it can answer or drop every other hook.
const modNotice = "mod (in-process code that can answer or drop every hook, skillwire's included)"

// count is "1 new hook", "2 new hooks".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
