package gate

import (
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/resolve"
	"github.com/skillwire/skillwire/walker"
	"github.com/skillwire/skillwire/workflow"
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
			l.cand.Kind = resolve.Workflow
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
