package provenance

import (
	"fmt"
	"strings"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot/findings"
	"go.yaml.in/yaml/v3"
)

// apmLock: files apm deployed into the project, pinned by apm.lock.yaml
// with their sha256 (deployed_file_hashes, "sha256:<hex>"), under the
// package's repo_url and resolved_commit.
func apmLock(project string, root claude.Root, name []byte, files []findings.File) []string {
	data, bad := read(project, ".", "apm.lock.yaml")
	if bad != "" {
		return []string{bad}
	}
	if data == nil {
		return nil
	}
	var l struct {
		Dependencies []struct {
			RepoURL    string            `yaml:"repo_url"`
			Commit     string            `yaml:"resolved_commit"`
			Ref        string            `yaml:"resolved_ref"`
			Version    string            `yaml:"version"`
			FileHashes map[string]string `yaml:"deployed_file_hashes"`
		} `yaml:"dependencies"`
		LocalHashes map[string]string `yaml:"local_deployed_file_hashes"`
	}
	if err := yaml.Unmarshal(data, &l); err != nil {
		return []string{"apm.lock.yaml cannot be read as YAML: provenance unknown"}
	}
	rel := strings.TrimPrefix(strings.TrimSuffix(root.Path, "/")+"/"+string(name), strings.TrimSuffix(project, "/")+"/")
	have := fileMap(files)
	if len(files) == 1 && string(files[0].Path) == string(name) {
		have = map[string]*findings.File{"": &files[0]} // a one-file candidate
	}
	var out []string
	check := func(from string, pins map[string]string) {
		n := 0
		var differ, missing []string
		for p, want := range pins {
			sub, ok := within(p, rel)
			if !ok {
				continue
			}
			n++
			f := have[sub]
			switch {
			case f == nil:
				missing = append(missing, sub)
			case f.Data == nil:
				differ = append(differ, sub+" (not read)")
			case strings.TrimPrefix(want, "sha256:") != sha256Of(f.Data):
				differ = append(differ, sub)
			}
		}
		if n == 0 {
			return
		}
		s := fmt.Sprintf("apm.lock.yaml: %d file(s) pinned, from %s", n, from)
		if len(differ) == 0 && len(missing) == 0 {
			s += "; all match their sha256"
		}
		if len(differ) > 0 {
			s += "; differs from apm.lock.yaml: " + listed(differ)
		}
		if len(missing) > 0 {
			s += "; pinned but gone: " + listed(missing)
		}
		var unpinned []string
		for p := range have {
			if _, ok := pins[joinRel(rel, p)]; !ok {
				unpinned = append(unpinned, p)
			}
		}
		if len(unpinned) > 0 {
			s += "; not pinned: " + listed(unpinned)
		}
		out = append(out, s)
	}
	for _, d := range l.Dependencies {
		from := q(d.RepoURL)
		if d.Commit != "" {
			from += " at commit " + q(d.Commit)
		} else if d.Ref != "" {
			from += " at ref " + q(d.Ref)
		}
		check(from, d.FileHashes)
	}
	check("the project itself", l.LocalHashes)
	return out
}

// within is lock path p relative to candidate rel ("" for a one-file
// candidate), and whether p lies in it.
func within(p, rel string) (string, bool) {
	if p == rel {
		return "", true
	}
	sub, ok := strings.CutPrefix(p, rel+"/")
	return sub, ok && sub != ""
}

func joinRel(rel, sub string) string {
	if sub == "" {
		return rel
	}
	return rel + "/" + sub
}
