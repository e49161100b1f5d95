package resolve

import (
	"bytes"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// CandidateOf is what is known of the candidate name of r, observed as
// kind, before reading it. That is where it is and what its folder is
// called.
func CandidateOf(r claude.Root, name []byte, kind walker.Kind) Candidate {
	switch r.Kind {
	case claude.Plugins:
		return Candidate{Scope: Plugin, Folder: name, Plugin: PluginName(name)}
	case claude.PluginSources:
		shown, ok := r.Display(name)
		if !ok {
			shown = "-"
		}
		return Candidate{Scope: Plugin, Folder: name, Plugin: r.SourcePlugin(name), Source: shown}
	}
	folder := name
	if kind == walker.KindFile {
		folder = bytes.TrimSuffix(folder, []byte(".md"))
	}
	c := PlaceOf(r)
	c.Folder = folder
	return c
}

// PlaceOf is the kind and scope of the candidates of r. It is a skill and
// the user's unless r says otherwise.
func PlaceOf(r claude.Root) Candidate {
	c := Candidate{Kind: Skill, Scope: User}
	switch r.Kind {
	case claude.Agents:
		c.Kind = Agent
	case claude.Commands:
		c.Kind = Command
	case claude.Workflows:
		c.Kind = Workflow
	}
	switch r.Scope {
	case claude.Project:
		c.Scope = Project
	case claude.Managed:
		c.Scope = Managed
	case claude.Added:
		c.Scope = Added
	}
	return c
}

// Display is the name c is shown by. A local marketplace's plugin is
// plugin@marketplace. A cached version is plugin@marketplace/version.
// Else it is the frontmatter name or folder that passes the display gate
// (plugin:name in a plugin). It is "" when none does.
func (c Candidate) Display() string {
	switch {
	case c.Source == "-":
		return ""
	case c.Source != "":
		return c.Source // a local marketplace's plugin folder: plugin@marketplace
	case c.Cached():
		// A cached plugin version is named by its directory.
		name, _ := claude.Display(claude.Plugins, c.Folder)
		return name
	}
	var name []byte
	switch {
	case c.Name != nil && anomaly.Gate(c.Name):
		name = c.Name
	case anomaly.Gate(c.Folder), len(c.Plugin) == 0 && claude.DotName(c.Kind.root(), c.Folder):
		name = c.Folder
	default:
		return ""
	}
	if len(c.Plugin) == 0 {
		return string(name)
	}
	if !anomaly.Gate(c.Plugin) {
		return ""
	}
	return string(c.Plugin) + ":" + string(name)
}

// Subject names c by gated name and id: `skill "docs:pdf" (sw...)`. It
// names c by id alone when no name passes the gate.
func (c Candidate) Subject() string {
	s := c.Kind.String()
	if c.Cached() {
		s = "plugin"
	}
	name := c.Display()
	if name != "" {
		s += ` "` + name + `"`
	}
	id := "unknown id"
	if anomaly.IsID(c.ID) {
		id = c.ID
	}
	if name == "" {
		return s + " " + id
	}
	return s + " (" + id + ")"
}

// root is the kind of root that holds a candidate of kind k.
func (k Kind) root() claude.Kind {
	switch k {
	case Agent:
		return claude.Agents
	case Command:
		return claude.Commands
	case Workflow:
		return claude.Workflows
	}
	return claude.Skills
}
