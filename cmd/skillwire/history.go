package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/content"
	"github.com/skillwire/skillwire/history"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/spf13/cobra"
)

type historyJSON struct {
	ID       string        `json:"id"`
	Versions []versionJSON `json:"versions"`
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
}

func newHistoryCmd(s *streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "history ID",
		Short: "List the kept versions of a candidate, newest first",
		Long: `history lists every kept version of the candidate ID (a unique prefix is
enough), newest first: its digest, when it was kept, how it came to be
(first-use, session, daemon, verdict, auto-accept, restored, displaced),
the verdict recorded on it, the files added, removed and modified since the
version before it, and whether it can be restored.

Exit 0, 2 usage error, 4 store unusable.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			ref, _, vs, err := w.versions(args[0])
			if err != nil {
				return err
			}
			out := historyJSON{ID: ref.id, Versions: []versionJSON{}}
			for i := range vs {
				v := &vs[i]
				j := versionJSON{Digest: v.Digest.String(), Time: v.At, How: string(v.How), Reviewer: v.Reviewer, Restorable: v.Restorable}
				if v.Verdict != "" {
					j.Verdict = &v.Verdict
				}
				var prev *snapshot.Manifest
				if i+1 < len(vs) {
					prev = &vs[i+1].Manifest
				}
				for _, c := range snapshot.Diff(prev, &v.Manifest) {
					if c.Old != nil && c.Old.Kind == snapshot.Dir || c.New != nil && c.New.Kind == snapshot.Dir {
						continue // the files in it count
					}
					switch c.Type {
					case snapshot.Added:
						j.Added++
					case snapshot.Removed:
						j.Removed++
					default:
						j.Modified++
					}
				}
				out.Versions = append(out.Versions, j)
			}
			if asJSON {
				return writeJSON(s.out, out)
			}
			fmt.Fprintf(s.out, "%s (%s): %d kept version(s), newest first\n", ref.id, gatedName(ref.name), len(vs))
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
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// versions resolves an id and reads its record and kept versions.
func (w *world) versions(prefix string) (candidateRef, *baseline.Record, []baseline.Version, error) {
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
		vs, err = tx.Versions(ref.id)
		return err
	})
	if err != nil {
		return ref, nil, nil, storeErr(err)
	}
	return ref, rec, vs, nil
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
