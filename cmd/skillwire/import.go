package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/legacy"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/internal/safefile"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

type importJSON struct {
	Imported int               `json:"imported"`
	Adverse  int               `json:"adverse"`
	Safe     int               `json:"safe_to_history"`
	NoMatch  int               `json:"unmatched"`
	Skipped  map[string]string `json:"skipped"`
	DryRun   bool              `json:"dry_run"`
}

func newImportCmd(s *streams) *cobra.Command {
	var from string
	var asJSON, dryRun bool
	cmd := &cobra.Command{
		Use:   "import --from PATH",
		Short: "Carry verdicts over from the predecessor's skill-vetting/baseline.json",
		Long: `import reads a predecessor baseline once and carries its verdicts over to
the candidates installed now (matched by scope and the SHA-256 of the
name). Its digests are of another encoding and are not used: a BLOCK or
SUSPECT stays in force on the candidate whatever its content; a
SAFE-TO-PROPOSE becomes history, and the candidate must be reviewed again.
The file is never changed, and the same file cannot be imported twice.

Exit 0 imported, 2 bad input or already imported, 4 store unusable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return fail(exitUsage, "--from PATH is required")
			}
			data, _, err := safefile.Read(from, legacy.MaxSize, safefile.Trust{})
			if err != nil {
				return fail(exitUsage, "cannot read the baseline: %s", defang(err.Error()))
			}
			entries, skipped, err := legacy.Parse(data)
			if err != nil {
				return fail(exitUsage, "%s", defang(err.Error()))
			}
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			st, err := w.open(true, false)
			if err != nil {
				return err
			}
			defer st.Close()
			matches := map[string][]baseline.Target{}
			for i, r := range walker.Discover(w.specs(), walker.DefaultConfig()) {
				root := w.roots[i]
				for _, c := range r.Candidates {
					k := legacy.KeyOf(root.Scope, c.Name)
					matches[k] = append(matches[k], baseline.Target{ID: st.ID(root.Path, c.Name), Root: root, Name: c.Name})
				}
			}
			out := importJSON{Skipped: skipped, DryRun: dryRun}
			for _, e := range entries {
				n := len(matches[e.Key])
				if n == 0 {
					out.NoMatch++
					continue
				}
				switch {
				case verdict.Adverse(e.Verdict):
					out.Adverse += n
				case e.Verdict == verdict.Safe:
					out.Safe += n
				}
				out.Imported += n
			}
			if !dryRun {
				err := st.Update(func(tx *baseline.Tx) error {
					_, err := tx.Import(sha256.Sum256(data), matches, entries, time.Now().UTC().Truncate(time.Second))
					return err
				})
				if errors.Is(err, baseline.ErrImported) {
					return fail(exitCode(err, exitInternal), "%v: it is never read twice", err)
				}
				if err != nil {
					return storeErr(err)
				}
			}
			if asJSON {
				return writeJSON(s.out, out)
			}
			verb := "imported"
			if dryRun {
				verb = "would import"
			}
			fmt.Fprintf(s.out, "%s %d record(s): %d adverse verdict(s) in force, %d safe verdict(s) kept as history\n", verb, out.Imported, out.Adverse, out.Safe)
			fmt.Fprintf(s.out, "%d entr(ies) match no installed candidate\n", out.NoMatch)
			keys := make([]string, 0, len(skipped))
			for k := range skipped {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(s.out, "skipped %s: %s\n", k, skipped[k])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the predecessor's baseline.json")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be imported, change nothing")
	return cmd
}
