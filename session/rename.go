package session

import (
	"bytes"
	"encoding/json"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/snapshot"
)

// DetectRenames pairs, within one comparison, each removed candidate
// reviewed SAFE with a new one of the same root. The new one must be the
// same thing under another name. It has the same frontmatter name, from
// kept bytes (content may be nil). Or it shares most file hashes. It is
// told as a rename, and the review is carried over on delivery
// (baseline.Reviews.Carry). The review keeps the candidate pending. So a
// rename never turns a pending change into a one-time notice. Each
// candidate is paired at most once.
func DetectRenames(tx *baseline.Tx, sts []baseline.Standing, content func(snapshot.Hash) ([]byte, bool)) ([]baseline.Rename, error) {
	var out []baseline.Rename
	used := map[string]bool{}
	for i := range sts {
		from := &sts[i]
		if from.State != baseline.Removed || from.Prior == nil || from.Prior.Review == nil || from.ID == "" {
			continue
		}
		old, err := tx.Manifest(from.ID)
		if err != nil {
			return nil, err
		}
		if old == nil {
			continue
		}
		for j := range sts {
			to := &sts[j]
			if to.State != baseline.New || to.Prior != nil || to.Digest() == nil || to.ID == "" || used[to.ID] ||
				to.Root.Path != from.Root.Path {
				continue
			}
			if sharesMostFiles(old, &to.Observed.Manifest) || sameFrontmatterName(old, &to.Observed.Manifest, content) {
				used[to.ID] = true
				out = append(out, baseline.Rename{From: from.ID, To: to.ID})
				break
			}
		}
	}
	return out, nil
}

// sharesMostFiles: over half the files of the larger version have their
// content (hash) in the other.
func sharesMostFiles(a, b *snapshot.Manifest) bool {
	hashes := map[snapshot.Hash]bool{}
	na := 0
	for i := range a.Entries {
		if e := &a.Entries[i]; e.Kind == snapshot.File {
			hashes[e.Hash] = true
			na++
		}
	}
	nb, shared := 0, 0
	for i := range b.Entries {
		if e := &b.Entries[i]; e.Kind == snapshot.File {
			nb++
			if hashes[e.Hash] {
				shared++
			}
		}
	}
	return shared > 0 && 2*shared > max(na, nb)
}

// sameFrontmatterName compares the main files' frontmatter names. The main
// file is SKILL.md, or the candidate file itself. Kept bytes only.
func sameFrontmatterName(a, b *snapshot.Manifest, content func(snapshot.Hash) ([]byte, bool)) bool {
	if content == nil {
		return false
	}
	na, ok := frontmatterName(a, content)
	if !ok {
		return false
	}
	nb, ok := frontmatterName(b, content)
	return ok && bytes.Equal(na, nb)
}

func frontmatterName(m *snapshot.Manifest, content func(snapshot.Hash) ([]byte, bool)) (json.RawMessage, bool) {
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.Kind != snapshot.File || len(e.Path) != 0 && string(e.Path) != "SKILL.md" {
			continue
		}
		b, ok := content(e.Hash)
		if !ok {
			return nil, false
		}
		ex := config.Frontmatter(b)
		var fm map[string]json.RawMessage
		if len(ex.Anomalies) > 0 || json.Unmarshal(ex.Canonical, &fm) != nil {
			return nil, false
		}
		n, ok := fm["name"]
		return n, ok && len(n) > 2 // a name, not ""
	}
	return nil, false
}
