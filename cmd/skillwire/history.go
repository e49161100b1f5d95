package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/content"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/spf13/cobra"
)

type historyJSON struct {
	ID       string        `json:"id"`
	Versions []versionJSON `json:"versions"`
	// Notes are the store's journal for the candidate (gate asks and
	// denies, halts, auto-accepts, restores), newest first, escaped.
	Notes []noteJSON `json:"notes"`
}

type versionJSON struct {
	Digest     string    `json:"digest"`
	Time       time.Time `json:"time"`
	How        string    `json:"how"`
	Verdict    *string   `json:"verdict"`
	Reviewer   string    `json:"reviewer,omitempty"`
	Restorable bool      `json:"restorable"`
	Added      int       `json:"added"`
	Removed    int       `json:"removed"`
	Modified   int       `json:"modified"`
	// Files are the files counted, each {path, change}, its path shown the
	// one way (anomaly.Names.Show: a script a settings file runs by where
	// it lies).
	Files []historyFileJSON `json:"files"`
}

type historyFileJSON struct {
	Path   string `json:"path"`
	Change string `json:"change"`
}

// historyFilesShown is how many files a row of the terminal view names.
const historyFilesShown = 5

type noteJSON struct {
	Kind   string    `json:"kind"`
	Time   time.Time `json:"time"`
	Text   string    `json:"text"`
	Digest *string   `json:"digest"`
}

func newHistoryCmd(s *streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "history ID",
		Short: "List every way a candidate's versions were kept, newest first, and its notes",
		Long: `history lists the candidate ID's history (a unique prefix of the id is
enough), newest first: one row per time a version was kept, with its
digest, that time, how it came to be (first-use, session, daemon, verdict
by whom, auto-accept, restored, displaced), the files added, removed and
modified since the row before it in time, and whether that version can be
restored. A version kept more than once (a reviewed version put back by
restore) has a row for each time.

Then the store's notes on the candidate, newest first: what the gate asked
or denied, halts, auto-accepts and restores (escaped).

Exit 0, 2 usage error, 4 store unusable.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			var notes []baseline.Note // oldest first
			var forms [][]byte        // the forms kept, to name the files a settings file runs
			ref, _, vs, err := w.versions(args[0], func(tx *baseline.Tx, ref candidateRef) (err error) {
				forms = [][]byte{tx.Extract(ref.id), tx.ReviewedExtract(ref.id)}
				notes, err = tx.Notes().Of(ref.id)
				return
			})
			if err != nil {
				return err
			}
			names := ref.root.BoundNames(ref.name, forms...)
			out := historyJSON{ID: ref.id, Versions: []versionJSON{}, Notes: []noteJSON{}}
			for _, r := range history.Rows(vs) {
				j := versionJSON{Digest: r.Version.Digest.String(), Time: r.At, How: string(r.How),
					Reviewer: defang(r.Reviewer), Restorable: r.Version.Restorable,
					Added: r.Added, Removed: r.Removed, Modified: r.Modified, Files: []historyFileJSON{}}
				for _, c := range r.Files {
					j.Files = append(j.Files, historyFileJSON{Path: names.Show(c.Path), Change: c.Type.String()})
				}
				if r.Verdict != "" {
					j.Verdict = &r.Verdict
				}
				out.Versions = append(out.Versions, j)
			}
			for i := len(notes) - 1; i >= 0; i-- {
				n := &notes[i]
				j := noteJSON{Kind: defang(n.Kind), Time: n.At, Text: defang(n.Text)}
				if n.Digest != nil {
					j.Digest = new(n.Digest.String())
				}
				out.Notes = append(out.Notes, j)
			}
			if asJSON {
				return writeJSON(s.out, out)
			}
			fmt.Fprintf(s.out, "%s (%s): %d kept version(s), %d event(s), newest first\n", ref.id, w.refName(ref), len(vs), len(out.Versions))
			for _, v := range out.Versions {
				restorable := "restorable"
				if !v.Restorable {
					restorable = "not restorable"
				}
				how := v.How
				if v.Verdict != nil {
					how += " " + *v.Verdict
					if v.Reviewer != "" {
						how += " by " + v.Reviewer
					}
				}
				fmt.Fprintf(s.out, "%s  %s  %-28s +%d -%d ~%d  %s\n", v.Digest, v.Time.UTC().Format(time.RFC3339), how,
					v.Added, v.Removed, v.Modified, restorable)
				for i, f := range v.Files {
					if i == historyFilesShown {
						fmt.Fprintf(s.out, "    and %d more\n", len(v.Files)-i)
						break
					}
					fmt.Fprintf(s.out, "    %-8s %s\n", f.Change, f.Path)
				}
			}
			if len(out.Notes) > 0 {
				fmt.Fprintf(s.out, "Notes, newest first:\n")
			}
			for _, n := range out.Notes {
				fmt.Fprintf(s.out, "  %s  %-19s %s\n", n.Time.UTC().Format(time.RFC3339), n.Kind, n.Text)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// versions resolves an id and reads its record and kept versions, and
// whatever also reads of it (nil: nothing), in one opening of the store.
func (w *world) versions(prefix string, also func(tx *baseline.Tx, ref candidateRef) error) (candidateRef, *baseline.Record, []baseline.Version, error) {
	st, err := w.open(false, true)
	if err != nil {
		return candidateRef{}, nil, nil, err
	}
	defer st.Close()
	ref, err := w.resolve(st, prefix)
	if err != nil {
		return ref, nil, nil, err
	}
	var rec *baseline.Record
	var vs []baseline.Version
	err = st.View(func(tx *baseline.Tx) error {
		var err error
		if rec, err = tx.Record(ref.id); err != nil {
			return err
		}
		if vs, err = tx.Versions().Of(ref.id); err != nil || also == nil {
			return err
		}
		return also(tx, ref)
	})
	if err != nil {
		return ref, nil, nil, storeErr(err)
	}
	return ref, rec, vs, nil
}

// version is versions with its target: the version named by pick (at most
// one digest or prefix), else its reviewed version.
func (w *world) version(prefix string, also func(tx *baseline.Tx, ref candidateRef) error, pick ...string) (candidateRef, []baseline.Version, *baseline.Version, error) {
	ref, rec, vs, err := w.versions(prefix, also)
	if err != nil {
		return ref, nil, nil, err
	}
	if len(pick) == 0 {
		return ref, vs, history.Reviewed(rec, vs), nil
	}
	v, err := pickVersion(vs, pick[0])
	return ref, vs, v, err
}

// pickVersion is the kept version named by a digest or unique prefix.
func pickVersion(vs []baseline.Version, p string) (*baseline.Version, error) {
	v, err := history.Find(vs, p)
	if err != nil {
		return nil, fail(exitUsage, "%s (see 'skillwire history')", defang(err.Error()))
	}
	return v, nil
}

// contentStore opens the content store to read; absent, nothing is kept.
func (w *world) contentStore() (*content.Store, error) {
	cs, err := content.Open(w.stateDir, content.Options{})
	if errors.Is(err, content.ErrAbsent) {
		return nil, nil
	}
	if err != nil {
		return nil, failure(err, exitNoAudit)
	}
	return cs, nil
}

// kept reads content from the content store (nil: nothing is kept), then
// from a fresh walk's stage.
func kept(cs *content.Store, stage *history.Stage) history.Content {
	return func(h snapshot.Hash, size int64) ([]byte, bool, error) {
		if b, ok := stage.Get(h); ok {
			return b, true, nil
		}
		if cs == nil || !cs.Has(h) {
			return nil, false, nil
		}
		b, err := cs.GetSized(h, size)
		if errors.Is(err, content.ErrMissing) {
			return nil, false, nil
		}
		return b, err == nil, err
	}
}
