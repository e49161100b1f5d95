// Package adverse finds the candidate under an adverse verdict that a new
// one resembles, so the gate holds it the same way.
package adverse

import (
	"bytes"
	"fmt"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Adverse verdicts follow content. Take a new candidate no person decided
// on. It may answer to the name of a candidate under an adverse verdict:
// the BLOCKed skill's folder renamed, its frontmatter still naming it. It
// may be another version folder of a plugin under one. Or it may share
// most of its files with one, by content hash. Then it is held the same
// way until a person decides on it.

// maxLikeRecords bounds how many adverse records one answer compares.
const maxLikeRecords = 64

// Like is the adverse candidate a new one resembles, and how.
type Like struct {
	Block bool   // BLOCK, else SUSPECT
	Text  string // `like BLOCKed skill "evil" (sw…): answers to its name`
}

// Resembled compares the new candidate c, observed as s, with every
// adverse record of the same kind of root.
func Resembled(tx *baseline.Tx, s *baseline.Standing, c resolve.Candidate) (Like, bool, error) {
	recs, err := tx.Records()
	if err != nil {
		return Like{}, false, err
	}
	var obs *snapshot.Manifest
	if s.Observed != nil {
		obs = &s.Observed.Manifest
	}
	compared := 0
	for _, r := range recs {
		if r.ID == s.ID || r.Verdict == nil || !verdict.Adverse(r.Verdict.Verdict) || r.Kind != s.Root.Kind {
			continue
		}
		if compared++; compared > maxLikeRecords {
			break
		}
		block := r.Verdict.Verdict == verdict.Block
		kind := walker.KindDir
		if r.Kind != claude.Skills {
			kind = walker.KindFile
		}
		other := resolve.CandidateOf(claude.Root{Kind: r.Kind, Scope: r.Scope}, r.Name, kind)
		other.ID = r.ID
		who := Word(block) + " " + other.Subject()
		name := r.Name
		if r.Kind != claude.Skills {
			name = bytes.TrimSuffix(name, []byte(".md"))
		}
		if r.Kind == claude.Plugins && string(r.Root) == s.Root.Path && claude.SamePlugin(r.Name, s.Name) {
			// A new version of a plugin under an adverse verdict. Whatever
			// its files, the plugin is the one a person judged.
			return Like{block, "like " + who + ": it is another version of that plugin"}, true, nil
		}
		if answersLike(r.Kind, c, name) {
			return Like{block, "like " + who + ": it answers to that name"}, true, nil
		}
		if obs == nil {
			continue
		}
		m, err := tx.Manifest(r.ID)
		if err != nil || m == nil {
			continue
		}
		// Most of its files, or a one-file agent or command whole.
		if same, of := shared(obs, m); of > 1 && 2*same > of || of == 1 && same == 1 {
			return Like{block, fmt.Sprintf("like %s: %d of %d files identical", who, same, of)}, true, nil
		}
	}
	return Like{}, false, nil
}

// answersLike reports whether c answers to the adverse candidate's name.
// It compares as the client does: agents folded (claude.AgentKey).
func answersLike(k claude.Kind, c resolve.Candidate, name []byte) bool {
	if k == claude.Agents {
		key := claude.AgentKey(string(name))
		return claude.AgentKey(string(c.Name)) == key && c.Name != nil || claude.AgentKey(string(c.Folder)) == key
	}
	return bytes.Equal(c.Name, name) || bytes.Equal(c.Folder, name)
}

// shared counts the files of a whose content a has in b too, of all a's files.
func shared(a, b *snapshot.Manifest) (same, of int) {
	in := map[snapshot.Hash]bool{}
	for _, e := range b.Entries {
		if e.Kind == snapshot.File {
			in[e.Hash] = true
		}
	}
	for _, e := range a.Entries {
		if e.Kind == snapshot.File {
			of++
			if in[e.Hash] {
				same++
			}
		}
	}
	return same, of
}

// Word is how a reason names the verdict: BLOCKed, else SUSPECT.
func Word(block bool) string {
	if block {
		return "BLOCKed"
	}
	return "SUSPECT"
}

// Named is the candidate under an adverse verdict whose name is name, in
// a use of kind use. Names compare as the client compares them: a skill's
// or command's folder or file byte for byte, an agent's folded. It looks
// among the records of the kinds such a use reaches. Plugins and
// configuration are named otherwise.
func Named(tx *baseline.Tx, use resolve.Kind, name string) (Like, bool, error) {
	recs, err := tx.Records()
	if err != nil {
		return Like{}, false, err
	}
	c := resolve.Candidate{Kind: use, Folder: []byte(name)}
	compared := 0
	for _, r := range recs {
		if r.Verdict == nil || !verdict.Adverse(r.Verdict.Verdict) || r.Kind == claude.Plugins || !r.Kind.Valid() || r.Kind == claude.Config {
			continue
		}
		kind := walker.KindDir
		if r.Kind != claude.Skills {
			kind = walker.KindFile
		}
		other := resolve.CandidateOf(claude.Root{Kind: r.Kind, Scope: r.Scope}, r.Name, kind)
		if !resolve.Reaches(use, other.Kind) {
			continue
		}
		if compared++; compared > maxLikeRecords {
			break
		}
		if !answersLike(r.Kind, c, other.Folder) {
			continue
		}
		block := r.Verdict.Verdict == verdict.Block
		other.ID = r.ID
		return Like{block, "like " + Word(block) + " " + other.Subject() + ": it answers to that name"}, true, nil
	}
	return Like{}, false, nil
}
