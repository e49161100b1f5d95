package main

import (
	"errors"
	"fmt"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/trust"
	"github.com/spf13/cobra"
)

type trustJSON struct {
	Sources []string `json:"sources"`
}

func newTrustCmd(s *streams) *cobra.Command {
	trust := &cobra.Command{
		Use:   "trust",
		Short: "Name the audit-log sources whose small refinements are accepted without a review",
		Long: `trust keeps, in the store only (a project cannot set it), the audit-log
sources whose changes to a candidate reviewed SAFE-TO-PROPOSE may be
accepted without a new review: bounded auto-accept, off until a source is
named. Auto-accept covers instruction text only: a change to a script (by
its shebang, executable bit or extension), hooks/hooks.json, settings or an
MCP configuration, or to any file that is not Markdown, always halts. A
change is auto-accepted only when every changed file is Markdown announced,
with its content's hash, by a trusted source in the global audit log; no
file is added or made executable; no symlink, special file or anomaly
appears; no frontmatter key but name and description changes; the
change's word drift is at most 20 % and the drift since the last review by a
person at most 60 %; and it does not return to a version an earlier
auto-accept replaced. Anything else halts the candidate until a person
records a verdict.

The global audit log is a file you own: anything that runs as you can
append to it under any source's name, the model's Bash tool and a skill's
own scripts included. Trusting a source spares reviews of its small text
edits; it proves nothing about who made them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	trust.AddCommand(&cobra.Command{
		Use:   "add SOURCE",
		Short: "Trust SOURCE (as the audit log's \"source\" field spells it)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			globalLog, err := globalAuditLog(s)
			if err != nil {
				return err
			}
			return trustUpdate(s, true, func(tx *baseline.Tx) error {
				if err := tx.Trust().Add(args[0]); err != nil {
					return err
				}
				fmt.Fprintf(s.out, "trusted %s for bounded auto-accept\n", args[0])
				fmt.Fprintf(s.out, "What this trusts: a change to Markdown instruction text of a candidate reviewed SAFE-TO-PROPOSE, announced by %s in the global audit log (%s), within the bounds, is accepted without a new review. A change to a script, an executable, hooks, settings or MCP configuration always halts.\n",
					args[0], globalLog)
				fmt.Fprintln(s.out, "Who can write that log: anything that runs as you (the model's Bash tool, a skill's scripts), under any source's name. It spares reviews; it proves nothing about who made a change.")
				return nil
			})
		},
	}, &cobra.Command{
		Use:   "remove SOURCE",
		Short: "Stop trusting SOURCE",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return trustUpdate(s, false, func(tx *baseline.Tx) error {
				was, err := tx.Trust().Remove(args[0])
				switch {
				case err != nil:
					return err
				case was:
					fmt.Fprintf(s.out, "no longer trusted: %s\n", args[0])
				default:
					fmt.Fprintln(s.out, "that source was not trusted")
				}
				return nil
			})
		},
	}, newTrustListCmd(s))
	return trust
}

func newTrustListCmd(s *streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the trusted sources",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			out := trustJSON{Sources: []string{}}
			st, err := baseline.Open(w.opts(false, true))
			switch {
			case err == nil:
				err = st.View(func(tx *baseline.Tx) error {
					srcs, err := tx.Trust().List()
					out.Sources = nonNil(srcs)
					return err
				})
				st.Close()
				if err != nil {
					return storeErr(err)
				}
			case !errors.Is(err, baseline.ErrAbsent):
				return storeErr(err)
			}
			if asJSON {
				return writeJSON(s.out, out)
			}
			if len(out.Sources) == 0 {
				fmt.Fprintln(s.out, "No source is trusted: auto-accept is off.")
			}
			for _, src := range out.Sources {
				fmt.Fprintln(s.out, src) // validated printable ASCII when stored
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// globalAuditLog is the path of the audit log whose entries auto-accept
// counts, escaped for the terminal.
func globalAuditLog(s *streams) (string, error) {
	w, err := loadWorld(s)
	if err != nil {
		return "", err
	}
	scopes, err := w.auditScopes(s)
	if err != nil {
		return "", err
	}
	for _, sc := range scopes {
		if !sc.ProjectLog {
			return anomaly.QuoteBytes([]byte(sc.Log)), nil
		}
	}
	return "none", nil
}

// trustUpdate runs fn in one write transaction; a malformed source name
// is a usage error, never echoed.
func trustUpdate(s *streams, create bool, fn func(*baseline.Tx) error) error {
	w, err := loadWorld(s)
	if err != nil {
		return err
	}
	st, err := w.open(create, false)
	if err != nil {
		return err
	}
	defer st.Close()
	err = st.Update(fn)
	if errors.Is(err, trust.ErrSourceName) {
		return fail(exitUsage, "a source is 1-128 printable ASCII characters without spaces, as the audit log's \"source\" field spells it")
	}
	if err != nil {
		return storeErr(err)
	}
	return nil
}
