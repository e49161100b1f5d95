package match

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/claude/workflow"
	"github.com/skillwire/skillwire/walker"
)

// Workflows is every workflow of found that a Workflow call of name may
// run. No file outranks another (resolve.Beats). One is a *.js file of a
// workflows folder whose meta.name is name. Another is one whose name
// could not be read, or was not read within nameBudget: it may bear any.
// For "plugin:name", every installed version of that plugin counts, judged
// whole: the client names a plugin's workflow plugin:meta.name.
func Workflows(name string, found []Located) []Located {
	var out, files []Located
	p, _, namespaced := strings.Cut(name, ":")
	for _, l := range found {
		switch {
		case l.Cand.Kind == resolve.Workflow && !l.Dir && strings.HasSuffix(string(l.Name), ".js"):
			files = append(files, l) // the client reads no other name, nor a folder
		case namespaced && p != "" && l.Cand.Scope == resolve.Plugin && (string(l.Cand.Plugin) == p || l.Cand.Cached() && mayBeNamed(l, p)):
			RunsAsWorkflow(&l)
			out = append(out, l)
		}
	}
	start := time.Now()
	for lo := 0; lo < len(files); {
		hi := lo + 1
		for hi < len(files) && hi-lo < nameChunk && files[hi].Root.Path == files[lo].Root.Path {
			hi++
		}
		chunk := files[lo:hi]
		lo = hi
		reads := make([]walker.FileRead, len(chunk)) // unread: every name unknown
		if time.Since(start) <= nameBudget {
			names := make([]string, len(chunk))
			for i, l := range chunk {
				names[i] = string(l.Name)
			}
			if r, err := walker.ReadFiles(chunk[0].Root.Path, ".", names, workflow.MaxSize); err == nil && len(r) == len(chunk) {
				reads = r
			}
		}
		for i, l := range chunk {
			n, ok := workflow.Name(reads[i].Data)
			switch {
			case reads[i].Missing: // gone: the client cannot run it either
			case !ok || reads[i].Reason != 0:
				out = append(out, l) // its name is unknown: it may be this one
			case n == name:
				l.Cand.Name = []byte(n)
				out = append(out, l)
			}
		}
	}
	return out
}

// RunsAsWorkflow is the one rule of what a Workflow call runs when it
// reaches l, by name or by path. A watched workflow file runs. So does a
// plugin: its workflow is the plugin's, so the plugin is judged whole as
// a workflow, and asked for the agents its scripts may start. Anything
// else is no workflow a person reviewed (false).
func RunsAsWorkflow(l *Located) bool {
	if l.Cand.Scope == resolve.Plugin {
		l.Cand.Kind = resolve.Workflow
		return true
	}
	return l.Cand.Kind == resolve.Workflow
}

// Started is a candidate a script may start, with the name it is started by.
type Started struct {
	L    Located
	Name string
}

// Agents returns the agents of found that any of a script's names may
// start. No precedence is applied: every agent of the name is judged. An
// agent answers to the folded key of its file or frontmatter name.
// "plugin:name" reaches every version of that plugin, judged whole. An
// agent whose name could not be read may bear any, so every name reaches
// it. A script's literals are mostly prompts, so each is looked up in
// maps built once, never by a walk.
func Agents(found []Located) func(names []string) []Started {
	var plugins []int
	byKey := map[string][]int{}
	unknownName := map[int]bool{}
	for _, i := range readNames(resolve.Agent, found, "") {
		unknownName[i] = true
	}
	for i, l := range found {
		switch {
		case l.Cand.Scope == resolve.Plugin:
			plugins = append(plugins, i)
		case l.Cand.Kind == resolve.Agent:
			k := claude.AgentKey(string(l.Cand.Folder))
			byKey[k] = append(byKey[k], i)
			if l.Cand.Name != nil {
				k = claude.AgentKey(string(l.Cand.Name))
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
		pluginNamed[string(l.Cand.Plugin)] = append(pluginNamed[string(l.Cand.Plugin)], i)
		if !l.Cand.Cached() {
			continue
		}
		switch n, unknown := manifestOf(l); {
		case unknown:
			anyName = append(anyName, i)
		case n != "":
			pluginNamed[n] = append(pluginNamed[n], i)
		}
	}
	return func(names []string) []Started {
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
		out := make([]Started, 0, len(idx))
		for _, i := range idx {
			l := found[i]
			l.Cand.Kind = resolve.Agent
			out = append(out, Started{l, name[i]})
		}
		return out
	}
}
