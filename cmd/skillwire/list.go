package main

import (
	"fmt"

	"github.com/skillwire/skillwire/anomaly"
	"text/tabwriter"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/spf13/cobra"
)

type listedJSON struct {
	candidateJSON
	Root  string       `json:"root"`
	Scope claude.Scope `json:"scope"`
}

func newListCmd(s *streams) *cobra.Command {
	var asJSON bool
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every candidate with its id, state, digest and verdict",
		Long: `list prints every candidate of every root with the id to use in other
commands (record, forget). It creates the store when absent, so that ids
exist, but records no observation: states stay relative to the last
delivered one.

Exit 0, or 4 when the store is unusable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			obs := w.scan(cmd.Context(), s, cfg)
			st, err := w.open(true, false)
			if err != nil {
				return err
			}
			defer st.Close()
			var sts []baseline.Standing
			if err := st.View(func(tx *baseline.Tx) error {
				sts, err = tx.Compare(obs)
				return err
			}); err != nil {
				return storeErr(err)
			}
			out := struct {
				Candidates []listedJSON `json:"candidates"`
			}{Candidates: []listedJSON{}}
			for i := range sts {
				cj, _ := renderCandidate(&sts[i], true)
				out.Candidates = append(out.Candidates, listedJSON{cj, anomaly.QuoteBytes([]byte(sts[i].Root.Path)), sts[i].Root.Scope})
			}
			if asJSON {
				return writeJSON(s.out, out)
			}
			if len(out.Candidates) == 0 {
				fmt.Fprintln(s.out, "No candidates.")
				return nil
			}
			tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSCOPE\tKIND\tNAME\tSTATE\tSTATUS\tVERDICT\tDIGEST\tANOMALIES")
			for _, c := range out.Candidates {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", orDash(c.ID), c.Scope, c.Kind, c.display(),
					c.State, orDash(c.Status), orDash(c.Verdict), c.shortDigest(), reasonsOrDash(c.Anomalies))
				printModLines(tw, "  ", c.Mods)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	bf.add(cmd)
	return cmd
}
