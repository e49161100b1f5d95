package baseline

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/internal/storefile"
	"github.com/skillwire/skillwire/snapshot"
)

// Note kinds: the decisions the journal keeps per candidate.
const (
	NoteAutoAccept         = "auto-accept"
	NoteHalt               = "halt"
	NoteGateAsk            = "gate-ask"
	NoteGateDeny           = "gate-deny"
	NoteRestore            = "restore"
	NoteInstructionsLoaded = "instructions-loaded"
)

// ErrNote: a note of an unknown kind or for an invalid id.
var ErrNote = errors.New("baseline: invalid note")

var bucketNotes = []byte("notes") // id \x00 seq -> note

// MaxNotes bounds the journal per candidate; the oldest go first.
const MaxNotes = 100

// maxNoteText bounds a note's text; it is shown to people and sessions.
const maxNoteText = 300

// Note is one decision taken about a candidate. It is an auto-accept, a halt,
// what the gate asked or denied, or a restore.
type Note struct {
	ID     string         `json:"id"`
	Kind   string         `json:"kind"`
	At     time.Time      `json:"at"`
	Text   string         `json:"text"`
	Digest *snapshot.Hash `json:"digest,omitempty"`
}

func validNoteKind(k string) bool {
	switch k {
	case NoteAutoAccept, NoteHalt, NoteGateAsk, NoteGateDeny, NoteRestore, NoteInstructionsLoaded, NoteAllowed:
		return true
	}
	return false
}

// Add journals n, keeping at most MaxNotes for its candidate. The
// text is cut to printable ASCII: it is read back to the model.
func (ns Notes) Add(n Note) error {
	if !anomaly.IsID(n.ID) || !validNoteKind(n.Kind) {
		return fmt.Errorf("%w: kind %q", ErrNote, SanitizeReviewer(n.Kind))
	}
	n.Text = printable(n.Text, maxNoteText)
	b, err := ns.t.bucket(bucketNotes)
	if err != nil {
		return err
	}
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	v, err := json.Marshal(n)
	if err != nil {
		return err
	}
	prefix := notePrefix(n.ID)
	if err := b.Put(binary.BigEndian.AppendUint64(prefix, seq), v); err != nil {
		return err
	}
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys[:max(0, len(keys)-MaxNotes)] {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// Of returns the journal of id, oldest first.
func (ns Notes) Of(id string) ([]Note, error) {
	b := ns.t.tx.Bucket(bucketNotes)
	if b == nil {
		return nil, nil
	}
	var out []Note
	prefix := notePrefix(id)
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var n Note
		if err := decodeStrict(v, &n); err != nil || n.ID != id {
			return nil, fmt.Errorf("%w: note of %s", ErrCorrupt, id)
		}
		out = append(out, n)
	}
	return out, nil
}

// Recent is the n newest notes of the given kinds across every candidate,
// newest first. It is what the gate asked and denied, for `status`. It
// includes candidates the store has no record of yet.
func (ns Notes) Recent(n int, kinds ...string) ([]Note, error) {
	b := ns.t.tx.Bucket(bucketNotes)
	if b == nil {
		return nil, nil
	}
	var out []Note
	err := b.ForEach(func(_, v []byte) error {
		var note Note
		if err := decodeStrict(v, &note); err != nil {
			return fmt.Errorf("%w: note", ErrCorrupt)
		}
		if slices.Contains(kinds, note.Kind) {
			out = append(out, note)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Note) int { return b.At.Compare(a.At) })
	return out[:min(n, len(out))], nil
}

func notePrefix(id string) []byte { return append([]byte(id), 0) }

// printable keeps printable ASCII only, at most n bytes (storefile.Printable).
func printable(s string, n int) string { return storefile.Printable(s, n) }
