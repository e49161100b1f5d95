// Package pluginrecord checks installed_plugins.json against each plugin's
// folder on disk (Facts). It recomputes a copyHash as the client does
// (CopyDigest, CopyHash).
//
// installed_plugins.json is Claude Code's record of the plugins it
// installed. It holds each install's installPath and version. For some it
// holds a copyHash (copyhash.go) and gitCommitSha. Where the folder on disk
// disagrees with it, that is a finding. The record is the client's; the
// folder may be an attacker's.
package pluginrecord

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/walker"
)

// maxCopyChecks bounds the folders one check reads whole for a copyHash.
// Each install past it is told unchecked.
const maxCopyChecks = 64

// The forms compile at first use: a hook that reads no record pays nothing.
var (
	// userIDForm is the only user id the client keeps (else it makes one).
	userIDForm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })
	commitForm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}$`) })
)

// Facts checks every install installed_plugins.json lists against its
// folder on disk. It tells an installPath that is missing or another
// plugin's cache folder. It tells a version other than its folder's name
// or its plugin.json's. It tells a gitCommitSha that is no commit id. It
// tells a copyHash its folder does not hash to, or that cannot be checked.
// Every file is read through the walker, bounded. A registry that cannot
// be read is its own candidate's anomaly, not a fact here.
func Facts(p claude.Places) []config.Fact {
	reads, err := walker.ReadFiles(p.Config, "plugins", []string{"installed_plugins.json", "known_marketplaces.json"}, config.MaxJSON)
	if err != nil || reads == nil {
		return nil
	}
	c := &recordCheck{cache: pathname.Join(pathname.Join(p.Config, "plugins"), "cache") + "/", known: decodeObject(claude.WholeForm(reads[1])), userID: func() (string, string) { return userID(p) }}
	for _, in := range config.PluginInstallRecords(claude.WholeForm(reads[0])) {
		c.install(in.Plugin, in.Fields)
	}
	return c.facts
}

type recordCheck struct {
	cache  string
	known  map[string]any
	userID func() (string, string)
	copies int
	facts  []config.Fact
}

func (c *recordCheck) tell(key, path, check string, recorded, found any) {
	c.facts = append(c.facts, config.RecordFact(key, path, check, recorded, found))
}

// install checks one install of plugin key.
func (c *recordCheck) install(key string, in map[string]any) {
	path, ok := in["installPath"].(string)
	if !ok || path == "" {
		c.tell(key, "", config.RecordPathUnrecorded, in["installPath"], nil)
		return
	}
	if sha, ok := in["gitCommitSha"]; ok {
		if s, _ := sha.(string); !commitForm().MatchString(s) {
			c.tell(key, path, config.RecordGitCommitSha, sha, nil)
		}
	}
	rest, under := strings.CutPrefix(path, c.cache)
	parts := strings.Split(rest, "/")
	if !under || len(parts) != 3 || !claude.PlainPath(path) {
		return // outside the cache: told as FactPluginOutsideCache
	}
	if at := strings.LastIndexByte(key, '@'); at <= 0 || parts[0] != key[at+1:] || parts[1] != key[:at] {
		c.tell(key, path, config.RecordPathOther, nil, nil)
	}
	dir, name := pathname.Parent(path), parts[2]
	reads, err := walker.ReadFiles(dir, name, []string{".claude-plugin"}, 0)
	if err != nil || reads == nil {
		c.tell(key, path, config.RecordPathMissing, nil, nil)
		return
	}
	if v, ok := in["version"].(string); ok {
		if v != name {
			c.tell(key, path, config.RecordVersionFolder, v, name)
		}
		if mv, ok := manifestVersion(path); ok && mv != v {
			c.tell(key, path, config.RecordVersionManifest, v, mv)
		}
	}
	if h, ok := in["copyHash"]; ok {
		c.copyHash(key, path, parts[0], h)
	}
}

// copyHash checks the recorded copyHash h of the install of key at path,
// from a marketplace market.
func (c *recordCheck) copyHash(key, path, market string, h any) {
	want, ok := h.(string)
	if !ok {
		c.tell(key, path, config.RecordCopyHashType, h, nil)
		return
	}
	if c.copies++; c.copies > maxCopyChecks {
		c.tell(key, path, config.RecordCopyHashUnchecked, "more installs record one than skillwire reads in one check", nil)
		return
	}
	uid, why := c.userID()
	if uid == "" {
		c.tell(key, path, config.RecordCopyHashUnchecked, why, nil)
		return
	}
	m, _ := c.known[market].(map[string]any)
	src, ok := m["source"].(map[string]any)
	if !ok {
		c.tell(key, path, config.RecordCopyHashUnchecked, "known_marketplaces.json holds no source of its marketplace", nil)
		return
	}
	digest, err := CopyDigest(path)
	var got string
	if err == nil {
		var b []byte
		if b, err = json.Marshal(src); err == nil {
			got, err = CopyHash(uid, key, b, digest)
		}
	}
	switch {
	case err != nil:
		c.tell(key, path, config.RecordCopyHashUnchecked, copyReason(err), nil)
	case got != want:
		c.tell(key, path, config.RecordCopyHash, want, got)
	}
}

// manifestVersion is the version plugin.json of the folder at path
// declares, when it declares one as a string.
func manifestVersion(path string) (string, bool) {
	reads, err := walker.ReadFiles(path, ".claude-plugin", []string{"plugin.json"}, config.MaxJSON)
	if err != nil || len(reads) != 1 {
		return "", false
	}
	v, ok := decodeObject(claude.WholeForm(reads[0]))["version"].(string)
	return v, ok
}

// userID is the client's own user id from .claude.json, or why there is
// none. It is read as the client reads it: a 64-digit lowercase hex
// string, else none.
func userID(p claude.Places) (string, string) {
	if p.ClaudeJSON == "" {
		return "", "the client's .claude.json is not known"
	}
	reads, err := walker.ReadFiles(p.ClaudeJSON, ".", []string{".claude.json"}, config.MaxClaudeJSON)
	if err != nil || len(reads) != 1 || reads[0].Missing || reads[0].Reason != 0 {
		return "", "the client's .claude.json cannot be read"
	}
	var doc struct {
		UserID any `json:"userID"`
	}
	if json.Unmarshal(reads[0].Data, &doc) != nil {
		return "", "the client's .claude.json is not JSON"
	}
	if s, _ := doc.UserID.(string); userIDForm().MatchString(s) {
		return s, ""
	}
	return "", "the client's .claude.json holds no user id"
}

// decodeObject is a canonical JSON object, numbers kept as written. It is
// nil when canon is not one.
func decodeObject(canon []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(canon))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}
