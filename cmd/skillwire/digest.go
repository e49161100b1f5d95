package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
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
	// ViaSymlink: the candidate is a top-level link, observed through it.
	// It is information, not an anomaly; the link text is in the digest.
	ViaSymlink bool `json:"via_symlink"`
}

func newDigestCmd(s *streams) *cobra.Command {
	var asJSON bool
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "digest PATH",
		Short: "Snapshot one candidate and print its digest",
		Long: `digest observes one candidate (a skill directory, an agent or command
file, a plugin version, a settings or MCP file) and prints its digest,
blake3:<hex>, with any anomalies: the digest record binds, since a
candidate of a watched root is observed as scan observes it (a settings
file reduced to its canonical security-relevant form, with the scripts it
runs). Nested paths are shown as depthN/<hex>, never as raw bytes.

A path ending in "." or containing ".." is accepted only when it is the
working directory ($PWD, not a symlink); an empty path and a path that does
not exist are refused (an id is not a path: 'skillwire list' prints ids
with their digests).

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
			if _, err := os.Lstat(dir + "/" + string(name)); errors.Is(err, fs.ErrNotExist) {
				if anomaly.IsIDPrefix(args[0]) {
					return fail(exitUsage, "refused: no such file or directory; digest takes a path, and that looks like an id: 'skillwire list' prints each candidate's digest")
				}
				return fail(exitUsage, "refused: no such file or directory")
			}
			c := observeForDigest(cmd.Context(), s, dir, name, cfg)
			found := c.Anomalies()
			out := digestJSON{Digest: hashString(baseline.DigestOf(&c)), Entries: len(c.Manifest.Entries), Partial: c.Partial(),
				Anomalies: []anomalyJSON{}, ViaSymlink: c.Manifest.ViaLink}
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

// observeForDigest observes dir/name as scan and record do, under the root
// that holds it. A configuration file is reduced to what it configures; a
// plugin version is observed as the cache's. So the digest printed is the
// one record binds. Anything else is observed plainly.
func observeForDigest(ctx context.Context, s *streams, dir string, name []byte, cfg walker.Config) walker.Candidate {
	var places claude.Places
	if w, err := loadWorld(s); err == nil {
		places = w.places
	}
	if r, cand, ok := places.RootOf(dir, string(name)); ok {
		return walker.ObserveIn(ctx, r.Spec(), []byte(cand), cfg)
	}
	return walker.Observe(ctx, dir, name, cfg)
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
