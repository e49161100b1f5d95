package main

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"text/tabwriter"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

type candidateJSON struct {
	ID        *string          `json:"id"`
	Name      *string          `json:"name"`
	State     string           `json:"state"`
	Digest    *string          `json:"digest"`
	Partial   bool             `json:"partial"`
	Anomalies []anomaly.Reason `json:"anomalies"`
	Status    *string          `json:"status"`
	Verdict   *string          `json:"verdict"`
}

type rootJSON struct {
	Path       string           `json:"path"`
	Scope      claude.Scope     `json:"scope"`
	Kind       claude.Kind      `json:"kind"`
	Exists     bool             `json:"exists"`
	Anomalies  []anomaly.Reason `json:"anomalies"`
	Candidates []candidateJSON  `json:"candidates"`
}

type scanJSON struct {
	Roots []rootJSON `json:"roots"`
}

func newScanCmd(s *streams) *cobra.Command {
	var asJSON bool
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "scan",
		Short: "Observe every skill, agent and command root and print their states",
		Long: `scan discovers Claude Code's roots (<config>/skills, agents, commands, and
the project's .claude/skills, agents, commands), observes every candidate
under one shared budget, and prints each one's state, digest and
anomalies. It changes nothing.

<config> is $CLAUDE_CONFIG_DIR when absolute, else ~/.claude; the project
is $CLAUDE_PROJECT_DIR when absolute, else the working directory.

Exit 0 clean, 3 when anything is anomalous or partial.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			env := claude.OSEnv()
			env.Getenv = s.getenv
			cfgDir, err := claude.ConfigDir(env)
			if err != nil {
				return fail(exitUsage, "%v", err)
			}
			roots := claude.Roots(cfgDir, claude.ProjectDir(env, ""))
			specs := make([]walker.RootSpec, len(roots))
			for i, r := range roots {
				specs[i] = r.Spec()
			}
			var progress atomic.Int64
			cfg.Progress = &progress
			stop := startProgress(s.err, &progress)
			observed := walker.Scan(cmd.Context(), specs, cfg)
			stop()

			out, finding := scanResult(roots, observed)
			if asJSON {
				if err := writeJSON(s.out, out); err != nil {
					return err
				}
			} else {
				printScan(s.out, out, cfgDir)
			}
			if finding {
				return errFinding
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	bf.add(cmd)
	return cmd
}

// scanResult renders observations in the JSON contract's shape and says
// whether anything is a finding.
func scanResult(roots []claude.Root, observed []walker.Root) (scanJSON, bool) {
	out := scanJSON{Roots: []rootJSON{}}
	finding := false
	for i, r := range roots {
		o := &observed[i]
		rj := rootJSON{Path: r.Path, Scope: r.Scope, Kind: r.Kind, Exists: !o.Missing,
			Anomalies: nonNil(o.Anomalies), Candidates: []candidateJSON{}}
		finding = finding || len(o.Anomalies) > 0
		for j := range o.Candidates {
			c := &o.Candidates[j]
			cj := candidateJSON{State: "new", Partial: c.Partial(), Anomalies: nonNil(walker.Reasons(c.Anomalies()))}
			if anomaly.Gate(c.Name) {
				n := string(c.Name)
				cj.Name = &n
			}
			if !c.Partial() {
				d := c.Digest.String()
				cj.Digest = &d
			}
			finding = finding || len(cj.Anomalies) > 0
			rj.Candidates = append(rj.Candidates, cj)
		}
		out.Roots = append(out.Roots, rj)
	}
	return out, finding
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func printScan(w io.Writer, out scanJSON, cfgDir string) {
	any := false
	for _, r := range out.Roots {
		any = any || r.Exists
	}
	if !any {
		fmt.Fprintf(w, "Nothing to watch: no skills, agents or commands under %s or the project's .claude.\n",
			anomaly.QuoteBytes([]byte(cfgDir)))
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range out.Roots {
		if !r.Exists {
			continue
		}
		fmt.Fprintf(tw, "%s %s  %s", r.Scope, r.Kind, anomaly.QuoteBytes([]byte(r.Path)))
		if len(r.Anomalies) > 0 {
			fmt.Fprintf(tw, "  [%s]", joinReasons(r.Anomalies))
		}
		fmt.Fprintln(tw)
		if len(r.Candidates) == 0 {
			fmt.Fprintln(tw, "  (no candidates)")
			continue
		}
		fmt.Fprintln(tw, "  STATE\tNAME\tDIGEST\tANOMALIES")
		for _, c := range r.Candidates {
			name := "(name hidden)"
			if c.Name != nil {
				name = *c.Name
			}
			digest := "(partial)"
			if c.Digest != nil {
				digest = (*c.Digest)[:len("blake3:")+16] + "…"
			}
			anoms := "-"
			if len(c.Anomalies) > 0 {
				anoms = joinReasons(c.Anomalies)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.State, name, digest, anoms)
		}
	}
	tw.Flush()
}

func joinReasons(rs []anomaly.Reason) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}
