package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot/findings"
)

// skillsLock: a skill the skills CLI installed. A project's
// skills-lock.json holds each skill's computedHash: sha256 over its files
// in path order, each path then its bytes. The user's
// ~/.agents/.skill-lock.json holds the source and a GitHub tree SHA.
func skillsLock(p claude.Places, root claude.Root, name []byte, files []findings.File) []string {
	var out []string
	if root.Scope == claude.Project && p.Project != "" {
		data, bad := read(p.Project, ".", "skills-lock.json")
		if bad != "" {
			return []string{bad}
		}
		if data != nil {
			out = append(out, localLock(data, string(name), files)...)
		}
	}
	if root.Scope == claude.Global && p.Home != "" {
		data, bad := read(p.Home, ".agents", ".skill-lock.json")
		if bad != "" {
			return append(out, bad)
		}
		if data != nil {
			out = append(out, globalLock(data, string(name), files)...)
		}
	}
	return out
}

type lockFile struct {
	Skills map[string]map[string]any `json:"skills"`
}

// lockEntry is name's entry in the lock file data, called file; ok is
// false when it has none. told says why when the file cannot be read.
func lockEntry(data []byte, file, name string) (e map[string]any, ok bool, told []string) {
	var l lockFile
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, false, []string{file + " cannot be read as JSON: provenance unknown"}
	}
	e, ok = l.Skills[name]
	return e, ok, nil
}

func localLock(data []byte, name string, files []findings.File) []string {
	e, ok, told := lockEntry(data, "skills-lock.json", name)
	if !ok {
		return told
	}
	s := "skills-lock.json: from " + q(e["source"])
	if t, ok := e["sourceType"]; ok {
		s += " (" + q(t) + ")"
	}
	if r, ok := e["ref"]; ok {
		s += " at ref " + q(r)
	}
	want, _ := e["computedHash"].(string)
	switch got, unknown := folderHash(files); {
	case want == "":
		s += "; it pins no computedHash"
	case unknown != "":
		s += "; its computedHash cannot be checked: " + unknown
	case got == want:
		s += "; matches its computedHash " + q(want)
	default:
		s += fmt.Sprintf("; differs from skills-lock.json: computedHash %s, the folder hashes to %s", q(want), q(got))
	}
	return []string{s}
}

// folderHash is the skills CLI's computedHash of the files: .git and
// node_modules left out, sorted as JavaScript's localeCompare does.
// unknown says why it cannot be computed.
func folderHash(files []findings.File) (string, string) {
	var fs []findings.File
	for _, f := range files {
		p := string(f.Path)
		if strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/") || strings.HasPrefix(p, "node_modules/") || strings.Contains(p, "/node_modules/") {
			continue
		}
		if f.Data == nil {
			return "", fmt.Sprintf("the content of %s was not read", q(p))
		}
		fs = append(fs, f)
	}
	slices.SortFunc(fs, func(a, b findings.File) int { return localeCompare(string(a.Path), string(b.Path)) })
	h := sha256.New()
	for _, f := range fs {
		h.Write(f.Path)
		h.Write(f.Data)
	}
	return hex.EncodeToString(h.Sum(nil)), ""
}

// punctuation is the root collation's order of ASCII punctuation, before
// digits and letters.
const punctuation = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"

// weight is a rune's primary weight: punctuation, digits, then letters
// without case, then the rest by code point.
func weight(r rune) int {
	if i := strings.IndexRune(punctuation, r); i >= 0 {
		return 1 + i
	}
	switch {
	case r >= '0' && r <= '9':
		return 100 + int(r-'0')
	case r >= 'a' && r <= 'z':
		return 200 + int(r-'a')*2
	case r >= 'A' && r <= 'Z':
		return 200 + int(r-'A')*2
	}
	return 1000 + int(r)
}

// localeCompare orders paths as the skills CLI sorts them (ICU root
// collation, for ASCII): by primary weight, then lower case before upper.
func localeCompare(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < min(len(ra), len(rb)); i++ {
		if d := weight(ra[i]) - weight(rb[i]); d != 0 {
			return d
		}
	}
	if d := len(ra) - len(rb); d != 0 {
		return d
	}
	for i := range ra {
		la, lb := ra[i] >= 'a' && ra[i] <= 'z', rb[i] >= 'a' && rb[i] <= 'z'
		if la != lb {
			if la {
				return -1
			}
			return 1
		}
	}
	return strings.Compare(a, b)
}

func globalLock(data []byte, name string, files []findings.File) []string {
	e, ok, told := lockEntry(data, ".skill-lock.json", name)
	if !ok {
		return told
	}
	s := ".skill-lock.json: from " + q(e["source"])
	for _, k := range []string{"sourceUrl", "skillPath", "installedAt", "updatedAt"} {
		if v, ok := e[k]; ok {
			s += fmt.Sprintf(", %s %s", k, q(v))
		}
	}
	want, _ := e["skillFolderHash"].(string)
	switch got, unknown := gitTree(files); {
	case want == "":
	case unknown != "":
		s += "; its skillFolderHash cannot be checked: " + unknown
	case got == want:
		s += "; matches its skillFolderHash (the folder's git tree) " + q(want)
	default:
		s += fmt.Sprintf("; differs from .skill-lock.json: skillFolderHash %s, the folder's git tree is %s", q(want), q(got))
	}
	return []string{s}
}
