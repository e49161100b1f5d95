package gate

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/claude/workflow"
	"github.com/skillwire/skillwire/walker"
)

// workflowsNamed is every workflow of found that a Workflow call of u's
// name may run: a *.js file of a workflows folder whose meta.name is the
// name, or whose name could not be read or was not read within nameBudget
// (it may bear any), and for "plugin:name" every installed version of that
// plugin, judged whole (the client names a plugin's workflow
// plugin:meta.name). No file outranks another (resolve.Beats).
func workflowsNamed(u Use, found []located) []located {
	var out, files []located
	p, _, namespaced := strings.Cut(u.Name, ":")
	for _, l := range found {
		switch {
		case l.cand.Kind == resolve.Workflow && !l.dir && strings.HasSuffix(string(l.name), ".js"):
			files = append(files, l) // the client reads no other name, nor a folder
		case namespaced && p != "" && l.cand.Scope == resolve.Plugin && (string(l.cand.Plugin) == p || l.cand.Cached() && mayBeNamed(l, p)):
			runsAsWorkflow(&l)
			out = append(out, l)
		}
	}
	start := time.Now()
	for lo := 0; lo < len(files); {
		hi := lo + 1
		for hi < len(files) && hi-lo < nameChunk && files[hi].root.Path == files[lo].root.Path {
			hi++
		}
		chunk := files[lo:hi]
		lo = hi
		reads := make([]walker.FileRead, len(chunk)) // unread: every name unknown
		if time.Since(start) <= nameBudget {
			names := make([]string, len(chunk))
			for i, l := range chunk {
				names[i] = string(l.name)
			}
			if r, err := walker.ReadFiles(chunk[0].root.Path, ".", names, workflow.MaxSize); err == nil && len(r) == len(chunk) {
				reads = r
			}
		}
		for i, l := range chunk {
			name, ok := workflow.Name(reads[i].Data)
			switch {
			case reads[i].Missing: // gone: the client cannot run it either
			case !ok || reads[i].Reason != 0:
				out = append(out, l) // its name is unknown: it may be this one
			case name == u.Name:
				l.cand.Name = []byte(name)
				out = append(out, l)
			}
		}
	}
	return out
}

// runsAsWorkflow is the one rule of what a Workflow call runs when it
// reaches l, by name or by path: a watched workflow file, or a plugin,
// whose workflow is the plugin's, judged whole as a workflow (so starts
// asks for the agents its scripts may start). Anything else is no
// workflow a person reviewed (false).
func runsAsWorkflow(l *located) bool {
	if l.cand.Scope == resolve.Plugin {
		l.cand.Kind = resolve.Workflow
		return true
	}
	return l.cand.Kind == resolve.Workflow
}

// scriptFinding is the finding of a Workflow call that runs a script no
// watched file holds: the call's own (script), or a file named by a path
// (scriptPath) that is no watched workflow's. Either is asked, quoted.
func scriptFinding(u Use) Finding {
	f := Finding{Candidate: resolve.Candidate{Kind: resolve.Workflow}, State: New, Unknown: true}
	if u.Script != "" {
		f.Script = "a script the call itself carries, " + anomaly.Quote(u.Script, 160)
	} else {
		f.Script = "the script file " + anomaly.Quote(u.Path, 160)
	}
	return f
}

// started is a candidate a script may start, with the name it is started by.
type started struct {
	l    located
	name string
}

// maxStarts bounds the candidates a Workflow call's scripts may start
// that the gate judges: past it, what is left is unknown, and judged so.
const maxStarts = maxRefs

// typedAgent is a literal agentType of a script's agent() call: a name
// the script is certain to start when the call runs.
type typedAgent struct {
	name     string
	observed bool // it reaches a candidate skillwire observed
}

// starts is every candidate of found that the scripts a Workflow call runs
// may start with no PreToolUse call of their own: the agents their
// literals name (workflow.ReadStarts: a superset), the child workflows
// their workflow('name') calls name, and those children's agents (the
// client nests one level only). Each is marked with how it is reached, and
// unseen holds what cannot be named: a script that could not be read, an
// agent() whose agentType is no literal, a plugin's workflow (its scripts
// are not read here), a folder of agents that could not be listed, the
// bound passed. typed is every literal agentType, each once, to be judged
// as an Agent call of it is (typedFindings): one of no observed agent
// may be served from where skillwire cannot see.
func starts(u Use, found, matched []located, blind []blindRoot) (out []started, unseen []Finding, typed []typedAgent) {
	type script struct {
		who string
		st  workflow.Starts
		top bool // run by the call itself: its workflow() children are followed
	}
	var scripts []script
	read := func(l located) {
		who := "the workflow"
		if n := l.cand.Display(); n != "" {
			who += ` "` + n + `"`
		}
		if l.cand.Scope == resolve.Plugin {
			scripts = append(scripts, script{who, workflow.Starts{Unnamed: "it is a plugin's, whose scripts skillwire does not read for the agents they start"}, false})
			return
		}
		r, err := walker.ReadFiles(l.root.Path, ".", []string{string(l.name)}, workflow.MaxSize)
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
		if l.cand.Kind == resolve.Workflow {
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
	key := func(l located) string { return l.root.Path + "\x00" + string(l.name) }
	for _, m := range matched {
		seen[key(m)] = true
	}
	add := func(l located, name, via string) bool {
		if seen[key(l)] {
			return true
		}
		if len(out) == maxStarts {
			return false
		}
		seen[key(l)] = true
		l.cand.Via = via
		out = append(out, started{l, name})
		return true
	}
	capped := false
	named := agentNamer(found)
	typedSeen := map[string]bool{}
	for i := 0; i < len(scripts); i++ { // children append theirs
		s := scripts[i]
		if s.st.Unnamed != "" {
			unseen = append(unseen, Finding{Candidate: resolve.Candidate{Kind: resolve.Agent}, State: New, Unnamed: s.who + " may start an agent skillwire cannot name: " + s.st.Unnamed})
		}
		for _, a := range named(s.st.Names) {
			capped = capped || !add(a.l, a.name, s.who+" may start it (agent())")
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
				if b.root.Kind == claude.Agents {
					unseen = append(unseen, Finding{Candidate: resolve.PlaceOf(b.root), State: Anomalous, Anomaly: b.reason, Root: true})
				}
			}
		}
		if !s.top { // a child's: the client nests one level only
			continue
		}
		for _, w := range s.st.Workflows {
			for _, l := range workflowsNamed(Use{Kind: resolve.Workflow, Name: w}, found) {
				if seen[key(l)] {
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
// call of its name (unknown, Check): one of no observed agent is held as
// the candidate recorded BLOCK or SUSPECT that it names, and asked while
// the session's added folders (or, for plugin:name, its plugin folders)
// are not all observed; a built-in's name is the client's own otherwise.
// One that names nothing anywhere is not started (the client's agent()
// fails on an unknown type), so it is no finding. An observed one is
// judged as a candidate, and held besides while plugin folders may serve
// its twin.
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

// agentNamer returns the agents of found that any of a script's names may
// start: by the folded key of their file or frontmatter name (no
// precedence is applied: every agent of the name is judged), "plugin:name"
// every version of that plugin (judged whole), and every agent whose name
// could not be read (it may bear any). A script's literals are mostly
// prompts: each is looked up in maps built once, never by a walk.
func agentNamer(found []located) func(names []string) []started {
	var plugins []int
	byKey := map[string][]int{}
	unknownName := map[int]bool{}
	for _, i := range readNames(resolve.Agent, found) {
		unknownName[i] = true
	}
	for i, l := range found {
		switch {
		case l.cand.Scope == resolve.Plugin:
			plugins = append(plugins, i)
		case l.cand.Kind == resolve.Agent:
			k := claude.AgentKey(string(l.cand.Folder))
			byKey[k] = append(byKey[k], i)
			if l.cand.Name != nil {
				k = claude.AgentKey(string(l.cand.Name))
				byKey[k] = append(byKey[k], i)
			}
		}
	}
	// A cached version answers to its folder's plugin and to its
	// plugin.json's name, or to any when that name is unknown.
	pluginNamed := map[string][]int{}
	var anyName []int
	for _, i := range plugins {
		l := found[i]
		pluginNamed[string(l.cand.Plugin)] = append(pluginNamed[string(l.cand.Plugin)], i)
		if !l.cand.Cached() {
			continue
		}
		switch n, unknown := manifestOf(l); {
		case unknown:
			anyName = append(anyName, i)
		case n != "":
			pluginNamed[n] = append(pluginNamed[n], i)
		}
	}
	return func(names []string) []started {
		name := map[int]string{} // the first name each is reached by
		reach := func(n string, idx []int) {
			for _, i := range idx {
				if _, ok := name[i]; !ok {
					name[i] = n
				}
			}
		}
		for _, n := range names {
			reach(n, byKey[claude.AgentKey(n)])
			if p, local, ok := strings.Cut(n, ":"); ok && p != "" && local != "" {
				reach(n, pluginNamed[p])
				reach(n, anyName)
			}
		}
		if len(names) > 0 {
			for i := range unknownName {
				reach(names[0], []int{i})
			}
		}
		idx := slices.Sorted(maps.Keys(name))
		out := make([]started, 0, len(idx))
		for _, i := range idx {
			l := found[i]
			l.cand.Kind = resolve.Agent
			out = append(out, started{l, name[i]})
		}
		return out
	}
}
