package main

import (
	"fmt"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

type anomalyJSON struct {
	Reason anomaly.Reason `json:"reason"`
	Path   string         `json:"path"`
}

type digestJSON struct {
	Digest    *string       `json:"digest"`
	Entries   int           `json:"entries"`
	Partial   bool          `json:"partial"`
	Anomalies []anomalyJSON `json:"anomalies"`
	// ViaSymlink: the candidate is a top-level link, observed through it
	// (information, not an anomaly; the link text is in the digest).
	ViaSymlink bool `json:"via_symlink"`
}

func newDigestCmd(s *streams) *cobra.Command {
	var asJSON bool
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "digest PATH",
		Short: "Snapshot one candidate and print its digest",
		Long: `digest observes one candidate (a skill directory, or an agent or command
file) and prints its digest, blake3:<hex>, with any anomalies. Nested
paths are shown as depthN/<hex>, never as raw bytes.

A path ending in "." or containing ".." is accepted only when it is the
working directory ($PWD, not a symlink); an empty path is refused.

Exit 0 clean, 3 anomalous or partial, 2 refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			pwd, pwdSet := s.getenv("PWD")
			dir, name, err := walker.SplitArg(args[0], pwd, pwdSet)
			if err != nil {
				// Refusals are fixed text: the argument is never echoed.
				return fail(exitCode(err, exitInternal), "%v", err)
			}
			c := walker.Observe(cmd.Context(), dir, name, cfg)
			found := c.Anomalies()
			out := digestJSON{Entries: len(c.Manifest.Entries), Partial: c.Partial(), Anomalies: []anomalyJSON{}, ViaSymlink: c.Manifest.ViaLink}
			if !c.Partial() {
				d := c.Digest.String()
				out.Digest = &d
			}
			for _, f := range found {
				out.Anomalies = append(out.Anomalies, anomalyJSON{Reason: f.Reason, Path: anomaly.PathLabel(f.Path)})
			}
			if asJSON {
				if err := writeJSON(s.out, out); err != nil {
					return err
				}
			} else {
				printDigest(s, &out)
			}
			if len(found) > 0 {
				return errFinding
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	bf.add(cmd)
	return cmd
}

func printDigest(s *streams, d *digestJSON) {
	if d.Digest != nil {
		fmt.Fprintln(s.out, *d.Digest)
	} else {
		fmt.Fprintln(s.out, "partial: no digest (the scan budget ran out; raise --max-entries or --max-bytes)")
	}
	fmt.Fprintf(s.out, "entries: %d\n", d.Entries)
	if d.ViaSymlink {
		fmt.Fprintln(s.out, "observed through a top-level symlink (its text is part of the digest)")
	}
	for _, a := range d.Anomalies {
		fmt.Fprintf(s.out, "anomaly: %s at %s\n", a.Reason, a.Path)
	}
}
