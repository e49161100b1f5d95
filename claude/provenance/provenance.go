// Package provenance says where a candidate came from, by the records
// its installer left: Claude Code's installed_plugins.json, the skills
// CLI's skills-lock.json and .skill-lock.json, and apm's apm.lock.yaml.
// Where the content differs from its own lock, that is told. A record is
// the installer's claim, read bounded, and every value is shown escaped.
package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/snapshot/findings"
	"github.com/skillwire/skillwire/walker"
)

// shown bounds one value a fact quotes.
const shown = 100

// maxLock bounds a lock file read.
const maxLock = config.MaxJSON

// Of is what the records say of candidate name of root, whose files are
// files (content as read in the same walk). p says where the records are.
func Of(p claude.Places, root claude.Root, name []byte, files []findings.File) []string {
	var out []string
	if root.Kind == claude.Plugins {
		out = append(out, plugin(p, root, name)...)
	}
	if root.Kind == claude.Skills {
		out = append(out, skillsLock(p, root, name, files)...)
	}
	if p.Project != "" && strings.HasPrefix(root.Path, strings.TrimSuffix(p.Project, "/")+"/") {
		out = append(out, apmLock(p.Project, root, name, files)...)
	}
	return out
}

func q(v any) string {
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	return anomaly.Quote(s, shown)
}

// read reads one file of the folder sub of dir ("." for dir itself),
// nil when missing, and a fact when it could not be read whole.
func read(dir, sub, name string) ([]byte, string) {
	reads, err := walker.ReadFiles(dir, sub, []string{name}, maxLock)
	switch {
	case err != nil:
		return nil, name + " could not be read: its folder could not be opened"
	case reads == nil || reads[0].Missing:
		return nil, ""
	case reads[0].Reason != 0:
		return nil, name + " could not be read: " + reads[0].Reason.String()
	}
	return reads[0].Data, ""
}

// plugin: the install record of a plugin's cache folder, from
// installed_plugins.json: its marketplace, version and commit.
func plugin(p claude.Places, root claude.Root, name []byte) []string {
	data, bad := read(p.Config, "plugins", "installed_plugins.json")
	if bad != "" {
		return []string{bad}
	}
	if data == nil {
		return []string{"installed_plugins.json: no record of this plugin (the file is missing)"}
	}
	canon := claude.WholeForm(walker.FileRead{Data: data})
	if canon == nil {
		return []string{"installed_plugins.json cannot be read as JSON (or holds a key twice): provenance unknown"}
	}
	dir := strings.TrimSuffix(root.Path, "/") + "/" + string(name)
	for _, in := range config.PluginInstallRecords(canon) {
		if in.Fields["installPath"] != dir {
			continue
		}
		market := "?"
		if at := strings.LastIndexByte(in.Plugin, '@'); at >= 0 {
			market = in.Plugin[at+1:]
		}
		s := fmt.Sprintf("installed_plugins.json: plugin %s from marketplace %s", q(in.Plugin), q(market))
		for _, k := range []string{"version", "gitCommitSha", "scope", "installedAt", "lastUpdated"} {
			if v, ok := in.Fields[k]; ok {
				s += fmt.Sprintf(", %s %s", k, q(v))
			}
		}
		out := []string{s}
		if at := strings.LastIndexByte(in.Plugin, '@'); at > 0 {
			if m := marketEntry(p, market, in.Plugin[:at], in.Fields["gitCommitSha"]); m != "" {
				out = append(out, m)
			}
		}
		return out
	}
	return []string{"installed_plugins.json: no install record names this folder"}
}

// sha256Of is a file's sha256 as locks write it.
func sha256Of(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// fileMap indexes files by path.
func fileMap(files []findings.File) map[string]*findings.File {
	m := make(map[string]*findings.File, len(files))
	for i := range files {
		m[string(files[i].Path)] = &files[i]
	}
	return m
}

// listed names at most a few paths, escaped, and how many more.
func listed(ps []string) string {
	slices.Sort(ps)
	const most = 5
	var b []string
	for i, p := range ps {
		if i == most {
			b = append(b, fmt.Sprintf("and %d more", len(ps)-most))
			break
		}
		b = append(b, anomaly.Quote(p, shown))
	}
	return strings.Join(b, ", ")
}
