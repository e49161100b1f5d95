package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/spf13/cobra"
)

func newForgetCmd(s *streams) *cobra.Command {
	var yes, dryRun bool
	cmd := &cobra.Command{
		Use:   "forget ID...",
		Short: "Remove candidates' records from the store",
		Long: `forget removes the records of the given ids (unique prefixes allowed): their
observations and verdicts. It shows exactly what it would remove and needs
--yes, or a yes typed on a terminal; --dry-run only shows. An adverse
verdict also follows its content, and forgetting a record does not clear
that: record a safe verdict on the content to do so.

Exit 0 done (or nothing confirmed), 2 usage error, 4 store unusable.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			st, err := w.open(false, false)
			if err != nil {
				return err
			}
			defer st.Close()
			var recs []*baseline.Record
			if err := st.View(func(tx *baseline.Tx) error {
				recs, err = tx.Records()
				return err
			}); err != nil {
				return storeErr(err)
			}
			ids := make([]string, len(recs))
			byID := map[string]*baseline.Record{}
			for i, r := range recs {
				ids[i] = r.ID
				byID[r.ID] = r
			}
			var targets []string
			for _, a := range args {
				if !anomaly.IsIDPrefix(a) {
					return errNotAnID("status")
				}
				id, err := pickID(a, ids, "no record has an id starting with that prefix")
				if err != nil {
					return err
				}
				targets = append(targets, id)
			}
			fmt.Fprintf(s.out, "would forget %d record(s):\n", len(targets))
			for _, id := range targets {
				e := statusEntry(byID[id])
				fmt.Fprintf(s.out, "  %s  %s  %s  %s\n", e.ID, displayName(e.Name), e.Status, orDash(e.Verdict))
			}
			if dryRun {
				return nil
			}
			if !yes && !confirm(s, "remove them?") {
				return fail(exitUsage, "nothing removed: pass --yes to confirm")
			}
			if err := st.Update(func(tx *baseline.Tx) error { return tx.Forget(targets) }); err != nil {
				return storeErr(err)
			}
			fmt.Fprintf(s.out, "forgot %d record(s)\n", len(targets))
			return nil
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm the removal")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be removed, remove nothing")
	return cmd
}

// confirm asks question on a terminal; anything but an explicit yes is a
// no, and without a terminal there is no one to ask.
func confirm(s *streams, question string) bool {
	in, ok := s.in.(*os.File)
	if !ok || !isTerminal(in) {
		return false
	}
	fmt.Fprintf(s.err, "%s [y/N] ", question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	a := strings.TrimSpace(strings.ToLower(line))
	return a == "y" || a == "yes"
}
