package provenance

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config/registry"
	"github.com/skillwire/skillwire/walker"
)

// marketEntry is what the marketplace's own marketplace.json says of the
// plugin: its fetched source and the ref and sha it pins. A sha other
// than the one installed is told.
func marketEntry(p claude.Places, market, plugin string, installed any) string {
	known, bad := read(p.Config, "plugins", "known_marketplaces.json")
	if bad != "" || known == nil {
		return ""
	}
	canon := claude.WholeForm(walker.FileRead{Data: known})
	file, ok := registry.MarketplaceFiles(canon)[market]
	i := strings.LastIndexByte(file, '/')
	if !ok || i <= 0 || !strings.HasPrefix(file, "/") {
		return ""
	}
	data, bad := read(file[:i], ".", file[i+1:])
	if bad != "" {
		return "its marketplace.json: " + bad
	}
	var doc struct {
		Plugins []struct {
			Name   string          `json:"name"`
			Source json.RawMessage `json:"source"`
		} `json:"plugins"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return "its marketplace.json cannot be read as JSON"
	}
	for _, e := range doc.Plugins {
		if e.Name != plugin {
			continue
		}
		var src map[string]any
		if json.Unmarshal(e.Source, &src) != nil {
			var path string
			json.Unmarshal(e.Source, &path)
			return "marketplace entry: source path " + q(path)
		}
		s := "marketplace entry: source " + q(src["source"])
		for _, k := range []string{"repo", "url", "package", "ref", "sha"} {
			if v, ok := src[k]; ok {
				s += fmt.Sprintf(", %s %s", k, q(v))
			}
		}
		if sha, ok := src["sha"].(string); ok && installed != nil && sha != installed {
			s += fmt.Sprintf("; the entry pins sha %s, the install record's gitCommitSha is %s", q(sha), q(installed))
		}
		return s
	}
	return "marketplace entry: none names " + q(plugin)
}
