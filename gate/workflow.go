package gate

import (
	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/claude/workflow"
	"github.com/skillwire/skillwire/gate/match"
	"github.com/skillwire/skillwire/walker"
)

// scriptFinding is the finding of a Workflow call that runs a script no
// watched file holds. It is the call's own (script), or a file named by a
// path (scriptPath) that is no watched workflow's. Either is asked,
// quoted.
func scriptFinding(u Use) Finding {
	f := Finding{Candidate: resolve.Candidate{Kind: resolve.Workflow}, State: New, Unknown: true}
	if u.Script != "" {
		f.Script = "a script the call itself carries, " + anomaly.Quote(u.Script, 160)
	} else {
		f.Script = "the script file " + anomaly.Quote(u.Path, 160)
	}
	return f
}

// maxStarts bounds the candidates the gate judges that a Workflow call's
// scripts may start. Past it, what is left is unknown, and judged so.
const maxStarts = match.MaxRefs

// typedAgent is a literal agentType of a script's agent() call. The
// script is certain to start that name when the call runs.
type typedAgent struct {
	name     string
	observed bool // it reaches a candidate skillwire observed
}

// starts is every candidate of found that a Workflow call's scripts may
// start with no PreToolUse call of their own. Those are the agents their
// literals name (workflow.ReadStarts: a superset). Then the child
// workflows their workflow('name') calls name, and those children's
// agents. The client nests one level only. Each is marked with how it is
// reached. unseen holds what cannot be named: a script that could not be
// read, or an agent() whose agentType is no literal. So is a plugin's
// workflow, whose scripts are not read here. So are a folder of agents
// that could not be listed and the bound passed. typed is every literal
// agentType, each once. Each is judged as an Agent call of it is
// (typedFindings). One of no observed agent may be served from out of
// skillwire's sight.
func starts(u Use, found, matched []match.Located, blind []match.Blind) (out []match.Started, unseen []Finding, typed []typedAgent) {
	type script struct {
		who string
		st  workflow.Starts
		top bool // run by the call itself: its workflow() children are followed
	}
	var scripts []script
	read := func(l match.Located) {
		who := "the workflow"
		if n := l.Cand.Display(); n != "" {
			who += ` "` + n + `"`
		}
		if l.Cand.Scope == resolve.Plugin {
			scripts = append(scripts, script{who, workflow.Starts{Unnamed: "it is a plugin's, whose scripts skillwire does not read for the agents they start"}, false})
			return
		}
		r, err := walker.ReadFiles(l.Root.Path, ".", []string{string(l.Name)}, workflow.MaxSize)
		switch {
		case err == nil && len(r) == 1 && r[0].Missing:
			return // gone: the client cannot run it either
		case err != nil || len(r) != 1 || r[0].Reason != 0:
			scripts = append(scripts, script{who, workflow.Starts{Unnamed: "its script could not be read"}, false})
			return
		}
		scripts = append(scripts, script{who, workflow.ReadStarts(r[0].Data), false})
	}
	for _, l := range matched {
		if l.Cand.Kind == resolve.Workflow {
			read(l)
		}
	}
	if u.Script != "" {
		scripts = append(scripts, script{"the call's own script", workflow.ReadStarts([]byte(u.Script)), false})
	}
	for i := range scripts {
		scripts[i].top = true
	}
	seen := map[string]bool{}
	for _, m := range matched {
		seen[m.Key()] = true
	}
	add := func(l match.Located, name, via string) bool {
		if seen[l.Key()] {
			return true
		}
		if len(out) == maxStarts {
			return false
		}
		seen[l.Key()] = true
		l.Cand.Via = via
		out = append(out, match.Started{L: l, Name: name})
		return true
	}
	capped := false
	named := match.Agents(found)
	typedSeen := map[string]bool{}
	for i := 0; i < len(scripts); i++ { // children append theirs
		s := scripts[i]
		if s.st.Unnamed != "" {
			unseen = append(unseen, Finding{Candidate: resolve.Candidate{Kind: resolve.Agent}, State: New, Unnamed: s.who + " may start an agent skillwire cannot name: " + s.st.Unnamed})
		}
		for _, a := range named(s.st.Names) {
			capped = capped || !add(a.L, a.Name, s.who+" may start it (agent())")
		}
		for _, n := range s.st.Agents {
			switch {
			case typedSeen[n]:
			case len(typed) == maxStarts:
				capped = true
			default:
				typedSeen[n] = true
				typed = append(typed, typedAgent{n, len(named([]string{n})) > 0})
			}
		}
		if len(s.st.Names) > 0 {
			for _, b := range blind {
				if b.Root.Kind == claude.Agents {
					unseen = append(unseen, Finding{Candidate: resolve.PlaceOf(b.Root), State: Anomalous, Anomaly: b.Reason, Root: true})
				}
			}
		}
		if !s.top { // a child's: the client nests one level only
			continue
		}
		for _, w := range s.st.Workflows {
			for _, l := range match.Workflows(w, found) {
				if seen[l.Key()] {
					continue
				}
				if !add(l, w, s.who+" runs it (workflow())") {
					capped = true
					break
				}
				read(l)
			}
		}
	}
	if capped {
		unseen = append(unseen, Finding{Candidate: resolve.Candidate{Kind: resolve.Workflow}, State: Anomalous, Root: true, Anomaly: anomaly.Depth, Capped: true})
	}
	return out, unseen, typed
}

// typedFindings judges each literal agentType as the Agent tool judges a
// call of its name (unknown, Check). One of no observed agent is held as
// the candidate recorded BLOCK or SUSPECT that it names. It is asked while
// the session's added folders are not all observed. For plugin:name, its
// plugin folders count. Otherwise a built-in's name is the client's own.
// One that names nothing anywhere is not started: the client's agent()
// fails on an unknown type. So it is no finding. An observed one is judged
// as a candidate. It is held besides while plugin folders may serve its
// twin.
func typedFindings(tx *baseline.Tx, typed []typedAgent, env Env) ([]Finding, error) {
	var out []Finding
	for _, t := range typed {
		u := Use{Kind: resolve.Agent, Name: t.name}
		if t.observed {
			if mayBeTwin(u, env) {
				out = append(out, twinFinding(u))
			}
			continue
		}
		f, err := heldNamed(tx, u, unknownFinding(u, env))
		if err != nil {
			return nil, err
		}
		if f.Like != "" || f.AddedUnknown || f.Twin {
			out = append(out, f)
		}
	}
	return out, nil
}
