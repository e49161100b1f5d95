package claude

import (
	"os"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/internal/pathname"
)

// Limits bound the discovery of the folders around a project that Claude
// Code loads from. A hostile tree may be deep, wide or full of links.
type Limits struct {
	MaxAncestors int // folders above the project looked at
	MaxDepth     int // levels below the project searched for nested folders
	MaxDirs      int // folders below the project listed, in breadth-first order
	MaxNested    int // nested folders kept, of each kind
}

// DefaultLimits keep discovery to a few milliseconds on a real repository.
var DefaultLimits = Limits{MaxAncestors: 64, MaxDepth: 8, MaxDirs: 4096, MaxNested: 64}

// instructionNames are the instruction files Claude Code reads in the
// project, in each folder above it, and in the nested folders it works in.
// AGENTS.md is read where a project has no CLAUDE.md, and watched always.
var instructionNames = []string{"AGENTS.md", "CLAUDE.local.md", "CLAUDE.md"}

// ancestors fills Ancestors and Above from p.Project. Above are the
// folders above it, up to the filesystem root, that hold an instruction
// file or .claude. Ancestors are those whose .claude Claude Code loads
// skills, agents, commands, output styles and workflows from. As in the
// client's own walk, they reach up to the repository's top, the nearest
// folder holding .git. Without one they stop before the home folder, else
// at "/". A folder holding none of them is no root. So the roots of a
// project do not depend on how deep it lies. One that gains a CLAUDE.md
// is found at the next start. A project path that is not plainly absolute
// has none: with "." or ".." components or doubled slashes, its parents by
// text would not be its parents.
func (p *Places) ancestors(lim Limits) {
	if !PlainPath(p.Project) {
		return
	}
	top := ""
	for d := p.Project; d != ""; d = parent(d) {
		if exists(pathname.Join(d, ".git")) {
			top = d
			break
		}
	}
	loads := true
	for d, n := parent(p.Project), 0; d != "" && n < lim.MaxAncestors; d, n = parent(d), n+1 {
		if d == p.Home {
			loads = false // ~/.claude is the configuration directory
		}
		dot := exists(pathname.Join(d, ".claude"))
		if dot || slices.ContainsFunc(instructionNames, func(n string) bool { return exists(pathname.Join(d, n)) }) {
			p.Above = append(p.Above, d)
		}
		if loads && dot {
			p.Ancestors = append(p.Ancestors, d)
		}
		if d == top {
			loads = false
		}
	}
	if top == p.Project {
		p.Ancestors = nil
	}
	p.top = top
}

// nested fills Nested and NestedInstructions. They are the folders below
// the project holding .claude/skills, and those holding an instruction
// file. They are found breadth-first within lim, never through a link,
// never into .git or .claude. Then the folders git ignores are dropped, as
// the client drops them. NestedPartial says a limit cut the search.
func (p *Places) nested(lim Limits) {
	if !PlainPath(p.Project) {
		return
	}
	type dir struct {
		path  string
		depth int
	}
	queue := []dir{{p.Project, 0}}
	listed := 0
	var ig *ignorer
	if p.top != "" {
		ig = newIgnorer(p.top)
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if listed == lim.MaxDirs {
			p.NestedPartial = true
			break
		}
		listed++
		ents, err := os.ReadDir(d.path)
		if err != nil {
			continue
		}
		instr := false
		for _, e := range ents {
			name := e.Name()
			switch {
			case d.depth > 0 && e.Type().IsRegular() && slices.Contains(instructionNames, name):
				instr = true
			case !e.IsDir() || name == ".git":
			case name == ".claude":
				if d.depth > 0 && isDir(pathname.Join(pathname.Join(d.path, name), "skills")) {
					p.Nested = append(p.Nested, d.path)
				}
			case d.depth+1 > lim.MaxDepth:
				p.NestedPartial = true
			default:
				queue = append(queue, dir{pathname.Join(d.path, name), d.depth + 1})
			}
		}
		if instr {
			p.NestedInstructions = append(p.NestedInstructions, d.path)
		}
		if d.depth == 0 && p.top != "" && len(queue) > 0 {
			// The project's own ignored folders (node_modules, build) are
			// most of a checkout. Asked once, they are never listed.
			sub := make([]string, len(queue))
			for i, q := range queue {
				sub[i] = q.path
			}
			ignored := ig.ask(sub)
			queue = slices.DeleteFunc(queue, func(q dir) bool { return ignored[q.path] })
		}
	}
	if p.top != "" && len(p.Nested)+len(p.NestedInstructions) > 0 {
		ignored := ig.ask(append(append([]string(nil), p.Nested...), p.NestedInstructions...))
		p.Nested = keep(p.Nested, ignored)
		p.NestedInstructions = keep(p.NestedInstructions, ignored)
	}
	for _, l := range []*[]string{&p.Nested, &p.NestedInstructions} {
		if len(*l) > lim.MaxNested {
			*l = (*l)[:lim.MaxNested]
			p.NestedPartial = true
		}
	}
}

func keep(dirs []string, drop map[string]bool) []string {
	out := dirs[:0]
	for _, d := range dirs {
		if !drop[d] {
			out = append(out, d)
		}
	}
	return out
}

// PlainPath: absolute, and every component a name, not "", "." or "..".
func PlainPath(p string) bool {
	if p == "/" {
		return true
	}
	if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, c := range strings.Split(p[1:], "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return true
}

// parent is the folder holding plain path p; "" above "/".
func parent(p string) string {
	if p == "/" {
		return ""
	}
	i := strings.LastIndexByte(p, '/')
	if i == 0 {
		return "/"
	}
	return p[:i]
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}
