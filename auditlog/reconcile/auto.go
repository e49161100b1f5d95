package reconcile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
)

// The bounds of auto-accept (DESIGN.md §11). They are in percent of the
// word count of the version a person last reviewed.
const (
	MaxChangeDrift     = 20
	MaxCumulativeDrift = 60
)

// MaxWords bounds the words of the reviewed version for drift to be
// measured. Past it the change halts ("too large to measure"). The word
// diff costs up to (words of a file) x (words reviewed). This bound keeps
// it well inside the hook's deadline.
const MaxWords = 10_000

// AutoInput is one change of a candidate reviewed SAFE. It runs from the
// version its review covers: a person's, or an earlier auto-accept.
type AutoInput struct {
	// Changes are the change's files, reconciled (Run against Old).
	Changes []Change
	// Trusted are the sources a person trusts (skillwire trust add).
	Trusted []string
	// Old is the reviewed version, New the version now.
	Old, New *snapshot.Manifest
	// Content returns the kept bytes of a file by its BLAKE3, verified. It
	// says false when they were not kept.
	Content func(snapshot.Hash) ([]byte, bool)
	// HumanWords is the word count of the version a person last reviewed. 0
	// means Old is that version, and its count is measured here.
	HumanWords int
	// Drifted is the drift, in words, accepted since the last human verdict.
	Drifted int
	// Replaced are the digests earlier auto-accepts replaced;
	// ReplacedContent are their ContentIdentity. Content returning to one
	// of them reverses an auto-accept.
	Replaced, ReplacedContent []snapshot.Hash
}

// AutoDecision is auto-accept's answer: Accept, or a one-line Reason.
type AutoDecision struct {
	Accept bool
	Source string // the trusted source that announced the change
	Reason string // why it halts: fixed words and numbers only
	// HumanWords, Drift and Cumulative are in words; Drift is this change's.
	HumanWords, Drift, Cumulative int
	// Replaces is the ContentIdentity of the version an accepted change
	// replaces. Later changes need it for the reversal rule.
	Replaces snapshot.Hash
}

func halt(format string, a ...any) AutoDecision {
	return AutoDecision{Reason: fmt.Sprintf(format, a...)}
}

// AutoAccept decides whether a change to a SAFE candidate is accepted
// without a person. Every rule of DESIGN.md §11 must hold. Anything it
// cannot establish halts: bytes not kept, a binary file, unparsable
// frontmatter. It never guesses in favour of accepting.
func AutoAccept(in AutoInput) AutoDecision {
	if in.Old == nil || in.New == nil || in.New.Partial || in.Old.Partial {
		return halt("not fully observed")
	}
	if len(in.Changes) == 0 {
		return halt("no file change to judge")
	}
	source := ""
	for i := range in.Changes {
		ch := &in.Changes[i]
		s, ok := trustedSource(ch, in.Trusted)
		switch {
		case !ok:
			return halt("%s not announced by a trusted source in the global audit log", changeWords(ch.Change.Type))
		case source == "":
			source = s
		}
	}
	for i := range in.New.Entries {
		if e := &in.New.Entries[i]; e.Reason != 0 || e.Kind == snapshot.Symlink || e.Kind == snapshot.Anomaly {
			return halt("symlink, special file or anomaly in the new version")
		}
	}
	for i := range in.Changes {
		ch := &in.Changes[i].Change
		switch {
		case ch.Type == snapshot.Added:
			return halt("new file added")
		case ch.Old != nil && ch.New != nil && ch.Old.Kind != ch.New.Kind:
			return halt("a file changed kind")
		case ch.New != nil && ch.New.Mode&0o111 != 0 && (ch.Old == nil || ch.Old.Mode&0o111 == 0) && ch.New.Kind == snapshot.File:
			return halt("new executable file")
		}
	}
	for i := range in.Changes {
		if why, ok := in.codeChange(&in.Changes[i]); ok {
			return halt("%s", why)
		}
	}
	if d, err := in.New.Digest(); err == nil && slices.Contains(in.Replaced, d) || slices.Contains(in.ReplacedContent, ContentIdentity(in.New)) {
		return halt("reverses an earlier auto-accept")
	}
	d := in.measure(source)
	if d.Accept {
		d.Replaces = ContentIdentity(in.Old)
	}
	return d
}

// codeChange says why a change is to a file that can run, or configures
// what runs. Auto-accept covers instruction text (Markdown) only. Anyone
// who can write a skill can write the global audit log that announces it
// (TestAutoAcceptNeverCoversCode). Fixed words only: the path is attacker
// bytes.
func (in *AutoInput) codeChange(ch *Change) (string, bool) {
	if dirOrNone(ch.Change.Old) && dirOrNone(ch.Change.New) {
		return "", false // a directory's mode: its files are judged each
	}
	name := ch.Change.Path
	if len(name) == 0 {
		name = ch.Name
	}
	base := name[bytes.LastIndexByte(name, '/')+1:]
	for _, e := range []*snapshot.Entry{ch.Change.Old, ch.Change.New} {
		if e != nil && e.Kind == snapshot.File && e.Mode&0o111 != 0 {
			return "executable file changed", true
		}
	}
	switch {
	case bytes.Equal(name, []byte("hooks/hooks.json")) || bytes.HasSuffix(name, []byte("/hooks/hooks.json")):
		return "hooks/hooks.json changed", true
	case bytes.Equal(base, []byte(".mcp.json")) || bytes.Equal(base, []byte(".claude.json")):
		return "MCP configuration changed", true
	case bytes.HasSuffix(base, []byte(".json")) && bytes.Contains(base, []byte("settings")):
		return "settings changed", true
	case slices.Contains(scriptExts, string(extOf(base))):
		return "script changed", true
	case !bytes.HasSuffix(base, []byte(".md")):
		return "a file other than Markdown instruction text changed", true
	}
	for _, e := range []*snapshot.Entry{ch.Change.Old, ch.Change.New} {
		if e == nil || e.Kind != snapshot.File {
			continue
		}
		if b, ok := in.Content(e.Hash); ok && bytes.HasPrefix(b, []byte("#!")) {
			return "script changed (shebang)", true
		}
	}
	return "", false
}

// scriptExts name the files that run by their extension. The Markdown rule
// halts on every other file too; these only name the reason.
var scriptExts = []string{
	".sh", ".bash", ".zsh", ".fish", ".ksh", ".py", ".pyw", ".rb", ".pl", ".php", ".lua",
	".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".ps1", ".bat", ".cmd", ".exe",
}

func dirOrNone(e *snapshot.Entry) bool { return e == nil || e.Kind == snapshot.Dir }

func extOf(base []byte) []byte {
	if i := bytes.LastIndexByte(base, '.'); i > 0 {
		return bytes.ToLower(base[i:])
	}
	return nil
}

// identityContext separates ContentIdentity from every other BLAKE3 use.
const identityContext = "skillwire 2026 content identity v1"

// ContentIdentity identifies what a version holds. It ignores what does not
// change what runs. Those are the permission bits but the executable bit,
// and sizes (the hash covers them). Paths, kinds, file hashes, the
// executable bit, link targets and anomaly reasons count. So a reversal is
// recognised after a chmod.
func ContentIdentity(m *snapshot.Manifest) snapshot.Hash {
	h := blake3.NewDeriveKey(identityContext)
	var buf []byte
	field := func(b []byte) {
		buf = binary.AppendUvarint(buf, uint64(len(b)))
		buf = append(buf, b...)
	}
	flags := byte(0)
	if m.Partial {
		flags |= 1
	}
	if m.ViaLink {
		flags |= 2
	}
	buf = append(buf, flags)
	field(m.Link)
	for i := range m.Entries {
		e := &m.Entries[i]
		field(e.Path)
		buf = append(buf, byte(e.Kind))
		switch e.Kind {
		case snapshot.File:
			buf = append(buf, e.Hash[:]...)
			buf = append(buf, byte(min(e.Mode&0o111, 1)))
		case snapshot.Symlink:
			field(e.Target)
		case snapshot.Anomaly:
			buf = append(buf, byte(e.Reason))
		}
		h.Write(buf)
		buf = buf[:0]
	}
	h.Write(buf)
	var id snapshot.Hash
	h.Sum(id[:0])
	return id
}

// trustedSource: an entry of a trusted source explains the change. The
// entry is in a log other than the project's own. It carries the content's
// hash, unless the change is a removal.
func trustedSource(ch *Change, trusted []string) (string, bool) {
	if !ch.Expected || ch.Class != ClassExpected || ch.Implied || ch.Entry == nil {
		return "", false
	}
	if ch.Change.Type != snapshot.Removed && !ch.Hashed {
		return "", false
	}
	return ch.Entry.Source, slices.Contains(trusted, ch.Entry.Source)
}

func changeWords(t snapshot.ChangeType) string {
	if t == snapshot.Removed {
		return "file removal"
	}
	return "file change"
}

// measure checks frontmatter and word drift. It needs the old and new bytes
// of every changed file.
func (in *AutoInput) measure(source string) AutoDecision {
	human := in.HumanWords
	if human == 0 {
		n, ok := in.words(in.Old)
		if !ok {
			return halt("previous content not kept")
		}
		human = n
	}
	if human > MaxWords {
		return halt("too large to measure drift (%d words > %d)", human, MaxWords)
	}
	// Drift is measured exactly up to the whole reviewed text. A larger
	// change is reported as over 100 %.
	drift, limit := 0, human+1
	for i := range in.Changes {
		ch := &in.Changes[i].Change
		if ch.Type == snapshot.ModeChanged || ch.Old.Kind != snapshot.File {
			continue
		}
		old, ok := in.Content(ch.Old.Hash)
		if !ok {
			return halt("previous content not kept")
		}
		var cur []byte
		if ch.New != nil {
			if cur, ok = in.Content(ch.New.Hash); !ok {
				return halt("new content not kept")
			}
		}
		if !isText(old) || !isText(cur) {
			return halt("binary file changed")
		}
		// codeChange let Markdown alone through: each one's frontmatter counts.
		if why, changed := frontmatterChanged(old, cur); changed {
			return halt("%s", why)
		}
		drift += wordDistance(strings.Fields(string(old)), strings.Fields(string(cur)), max(limit-drift, 1))
		if drift >= limit {
			break
		}
	}
	d := AutoDecision{Source: source, HumanWords: human, Drift: drift, Cumulative: in.Drifted + drift}
	switch {
	case exceeds(drift, human, MaxChangeDrift):
		d.Reason = fmt.Sprintf("drift %s > %d %%", percent(drift, human), MaxChangeDrift)
	case exceeds(d.Cumulative, human, MaxCumulativeDrift):
		d.Reason = fmt.Sprintf("cumulative drift %s > %d %%", percent(d.Cumulative, human), MaxCumulativeDrift)
	default:
		d.Accept = true
	}
	return d
}

func exceeds(words, human, pct int) bool { return words*100 > pct*human }

func percent(words, human int) string {
	switch {
	case human == 0:
		return "of an empty text"
	case words > human:
		return "over 100 %"
	}
	return fmt.Sprintf("%d %%", (words*100+human/2)/human)
}

// words counts the words of the text files of m, from their kept bytes.
func (in *AutoInput) words(m *snapshot.Manifest) (int, bool) {
	n := 0
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.Kind != snapshot.File {
			continue
		}
		b, ok := in.Content(e.Hash)
		if !ok {
			return 0, false
		}
		if isText(b) {
			n += len(strings.Fields(string(b)))
		}
	}
	return n, true
}

func isText(b []byte) bool { return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 }

// freeKeys are the only frontmatter keys whose change may auto-accept. They
// describe, and grant nothing. Any other key halts, known or not. Claude
// Code reads keys that grant power in skills, agents and commands. They
// include allowed-tools, tools, disallowedTools, permissionMode, model,
// effort and hooks. So do mcpServers, skills, context, agent, isolation,
// background and memory. So do maxTurns, disable-model-invocation and
// user-invocable.
var freeKeys = []string{"name", "description"}

// knownKeys may be named in a halt's reason: Claude Code's documented
// frontmatter keys. Any other key is attacker bytes and is not named.
var knownKeys = []string{
	"agent", "allowed-tools", "argument-hint", "background", "color", "context",
	"disable-model-invocation", "disallowedTools", "effort", "hooks", "isolation",
	"license", "maxTurns", "mcpServers", "memory", "metadata", "model", "paths",
	"permissionMode", "shell", "skills", "tools", "user-invocable", "version",
}

// frontmatterChanged says why the frontmatter halts. It names the first key
// but name and description whose value differs: added, removed or changed.
// Or either version cannot be read whole: a second document, a duplicate
// key, anything unparsable. Fixed words only.
func frontmatterChanged(old, cur []byte) (string, bool) {
	a, b := config.FrontmatterFields(old), config.FrontmatterFields(cur)
	for _, ex := range []config.Extract{a, b} {
		if len(ex.Anomalies) > 0 {
			return fmt.Sprintf("frontmatter unreadable (%s)", ex.Anomalies[0]), true
		}
	}
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a.Canonical, &ma) != nil || json.Unmarshal(b.Canonical, &mb) != nil {
		return "frontmatter unreadable", true
	}
	keys := slices.Sorted(maps.Keys(ma))
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if slices.Contains(freeKeys, k) || bytes.Equal(ma[k], mb[k]) {
			continue
		}
		if slices.Contains(knownKeys, k) {
			return "frontmatter " + k + " changed", true
		}
		return "frontmatter key changed", true
	}
	return "", false
}

// wordDistance is the number of words inserted plus deleted between a and
// b. It follows Myers' shortest edit script. It is limit when it is at
// least limit: the search stops there. So a large rewrite costs no more
// than the bound.
func wordDistance(a, b []string, limit int) int {
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return min(n+m, limit)
	}
	maxD := min(n+m, limit)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return d
			}
		}
	}
	return limit
}
