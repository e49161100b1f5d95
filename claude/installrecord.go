package claude

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/config"
	"github.com/skillwire/skillwire/pathname"
	"github.com/skillwire/skillwire/walker"
)

// installed_plugins.json is the client's record of what it installed:
// each install's installPath, version, and for some a copyHash (copyhash.go)
// and gitCommitSha. Where the folder on disk disagrees with it, that is a
// finding: the record is the client's, the folder may be an attacker's.

// maxCopyChecks bounds the folders one check reads whole for a copyHash;
// each install past it is told unchecked.
const maxCopyChecks = 64

var (
	// userIDForm is the only user id the client keeps (else it makes one).
	userIDForm = regexp.MustCompile(`^[0-9a-f]{64}$`)
	commitForm = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// InstallRecordFacts checks every install installed_plugins.json lists
// against its folder on disk: an installPath missing, or the cache folder of
// another plugin; a version other than its folder's name or its
// plugin.json's; a gitCommitSha that is no commit id; a copyHash its folder
// does not hash to, or that cannot be checked. Every file is read through
// the walker, bounded; a registry that cannot be read is its own
// candidate's anomaly, not a fact here.
func (p Places) InstallRecordFacts() []config.Fact {
	reads, err := walker.ReadFiles(p.Config, "plugins", []string{"installed_plugins.json", "known_marketplaces.json"}, config.MaxJSON)
	if err != nil || reads == nil {
		return nil
	}
	installed := decodeObject(wholeForm(reads[0]))
	known := decodeObject(wholeForm(reads[1]))
	plugins, _ := installed["plugins"].(map[string]any)
	c := &recordCheck{cache: pathname.Join(pathname.Join(p.Config, "plugins"), "cache") + "/", known: known, userID: p.userID}
	for _, key := range sortedKeys(plugins) {
		for _, in := range installList(plugins[key]) {
			c.install(key, in)
		}
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

func (c *recordCheck) tell(key, path, typ, value, found string) {
	c.facts = append(c.facts, config.Fact{Kind: config.FactPluginRecordDiffers, Name: key, Command: path, Type: typ, Value: value, Event: found})
}

// install checks one install of plugin key.
func (c *recordCheck) install(key string, in map[string]any) {
	path, ok := in["installPath"].(string)
	if !ok || path == "" {
		c.tell(key, "", config.RecordPathUnrecorded, jsonText(in["installPath"]), "")
		return
	}
	if sha, ok := in["gitCommitSha"]; ok {
		if s, _ := sha.(string); !commitForm.MatchString(s) {
			c.tell(key, path, config.RecordGitCommitSha, recordedText(sha), "")
		}
	}
	rest, under := strings.CutPrefix(path, c.cache)
	parts := strings.Split(rest, "/")
	if !under || len(parts) != 3 || !plainPath(path) {
		return // outside the cache: told as FactPluginOutsideCache
	}
	if at := strings.LastIndexByte(key, '@'); at <= 0 || parts[0] != key[at+1:] || parts[1] != key[:at] {
		c.tell(key, path, config.RecordPathOther, "", "")
	}
	dir, name := pathname.Parent(path), parts[2]
	reads, err := walker.ReadFiles(dir, name, []string{".claude-plugin"}, 0)
	if err != nil || reads == nil {
		c.tell(key, path, config.RecordPathMissing, "", "")
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
		c.tell(key, path, config.RecordCopyHashType, jsonText(h), "")
		return
	}
	if c.copies++; c.copies > maxCopyChecks {
		c.tell(key, path, config.RecordCopyHashUnchecked, "more installs record one than skillwire reads in one check", "")
		return
	}
	uid, why := c.userID()
	if uid == "" {
		c.tell(key, path, config.RecordCopyHashUnchecked, why, "")
		return
	}
	m, _ := c.known[market].(map[string]any)
	src, ok := m["source"].(map[string]any)
	if !ok {
		c.tell(key, path, config.RecordCopyHashUnchecked, "known_marketplaces.json holds no source of its marketplace", "")
		return
	}
	digest, err := CopyDigest(path)
	var got string
	if err == nil {
		got, err = CopyHash(uid, key, []byte(jsonText(src)), digest)
	}
	switch {
	case err != nil:
		c.tell(key, path, config.RecordCopyHashUnchecked, copyReason(err), "")
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
	v, ok := decodeObject(wholeForm(reads[0]))["version"].(string)
	return v, ok
}

// userID is the client's own user id, from .claude.json, read as the
// client reads it (a 64-digit lowercase hex string, else none), or why
// there is none.
func (p Places) userID() (string, string) {
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
	if s, _ := doc.UserID.(string); userIDForm.MatchString(s) {
		return s, ""
	}
	return "", "the client's .claude.json holds no user id"
}

// decodeObject is a canonical JSON object, numbers kept as written; nil
// when it is not one.
func decodeObject(canon []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(canon))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}

// installList is one installed_plugins.json entry: a list of installs
// (version 2) or one install (version 1).
func installList(v any) []map[string]any {
	if m, ok := v.(map[string]any); ok {
		return []map[string]any{m}
	}
	l, _ := v.([]any)
	var out []map[string]any
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// recordedText is a recorded value for a fact: a string as itself, any
// other value as its JSON.
func recordedText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return jsonText(v)
}

// jsonText is a value as JSON, for a fact: "" when absent.
func jsonText(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
