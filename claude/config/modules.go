package config

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// A mod is a plugin whose hooks file lists "modules": code the client runs
// in its own process, above every hook of settings but managed ones
// (issue 30). The client reads "modules" only from hooks/hooks.json and
// from the files plugin.json's "hooks" names. It ignores a top-level
// hooks.json and "modules" inline in plugin.json.

// ModulesKey holds, in a plugin's form, what its hooks files list as
// modules: [{"file": path, "modules": the value as written}]. A module
// may import any file of its plugin, so the plugin's files are the mod.
const ModulesKey = "hooksModules"

// HooksFile is where a plugin's hooks are when plugin.json names none.
const HooksFile = "hooks/hooks.json"

// pluginManifest is the plugin.json a plugin's form is read from.
const pluginManifest = ".claude-plugin/plugin.json"

// WithModules sets ModulesKey in form from the front files of a plugin,
// paths and their canonical forms, and drops any "modules" the join
// carried over. Only hooks files count.
func WithModules(form []byte, paths []string, canons [][]byte) []byte {
	if form == nil {
		return nil
	}
	hooksFiles := []string{HooksFile}
	if i := slices.Index(paths, pluginManifest); i >= 0 {
		for _, v := range append(cfgList(decodeCanonical(canons[i])["hooks"]), decodeCanonical(canons[i])["hooks"]) {
			if s, ok := v.(string); ok {
				hooksFiles = append(hooksFiles, strings.TrimPrefix(s, "./"))
			}
		}
	}
	var mods []any
	for i, p := range paths {
		if p == pluginManifest || !slices.Contains(hooksFiles, p) {
			continue
		}
		if v := decodeCanonical(canons[i])["modules"]; v != nil {
			mods = append(mods, map[string]any{"file": p, "modules": v})
		}
	}
	doc := decodeCanonical(form)
	delete(doc, "modules")
	if len(mods) > 0 {
		doc[ModulesKey] = mods
	}
	return canonicalJSON(doc)
}

// maxModulesTold bounds the modules one fact names; the rest are counted.
const maxModulesTold = 4

// ModuleFacts are the hooks modules a plugin's form lists, one fact per
// hooks file. Each entry is told as written, never opened: a path that
// leaves the plugin, a control byte or a value that is not a string. A
// "modules" that is not a list is told as one entry. An empty list loads
// nothing and is no fact.
func ModuleFacts(canon []byte) []Fact {
	var fs []Fact
	for _, e := range cfgList(decodeCanonical(canon)[ModulesKey]) {
		m, _ := e.(map[string]any)
		entries, ok := m["modules"].([]any)
		if !ok && m["modules"] != nil {
			entries = []any{m["modules"]}
		}
		if len(entries) == 0 {
			continue
		}
		names := make([]string, 0, maxModulesTold)
		for _, v := range entries[:min(len(entries), maxModulesTold)] {
			s := cfgText(v)
			if v == nil {
				s = "null"
			}
			names = append(names, s)
		}
		b, _ := json.Marshal(names)
		f := Fact{Kind: FactHooksModule, Name: cfgText(m["file"]), Command: string(b)}
		if n := len(entries) - len(names); n > 0 {
			f.Value = strconv.Itoa(n)
		}
		fs = append(fs, f)
	}
	return fs
}

// HasModules reports whether a plugin's form lists a hooks module.
func HasModules(canon []byte) bool { return len(ModuleFacts(canon)) > 0 }

// sayModule tells the modules one hooks file lists and what such code can do.
func sayModule(f Fact) string {
	var names []string
	_ = json.Unmarshal([]byte(f.Command), &names)
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = factQuote(n)
	}
	s, verb := "hooks module ", " runs"
	if len(names) > 1 || f.Value != "" {
		s, verb = "hooks modules ", " run"
	}
	s += strings.Join(quoted, ", ")
	if n, err := strconv.Atoi(f.Value); err == nil {
		s += " and " + strconv.Itoa(n) + " more"
	}
	return s + " (listed in " + factQuote(f.Name) + ")" + verb +
		" in-process code that can answer, rewrite or drop every hook of your settings, skillwire's included"
}

// Rank orders facts as told: a hooks module first, then the other
// dangerous facts, then the rest. A mod outranks every other fact: it can
// silence what they warn of.
func (f Fact) Rank() int {
	switch {
	case f.Kind == FactHooksModule:
		return 0
	case f.Dangerous():
		return 1
	}
	return 2
}
