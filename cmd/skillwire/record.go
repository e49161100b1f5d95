package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/review"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

type recordJSON struct {
	Recorded string           `json:"recorded"`
	Digest   *string          `json:"digest"`
	Verdict  string           `json:"verdict"`
	Replaced *replacedJSON    `json:"replaced"`
	Reasons  []anomaly.Reason `json:"anomalies"`
}

type replacedJSON struct {
	Verdict  string    `json:"verdict"`
	Digest   *string   `json:"digest"`
	Reviewer string    `json:"reviewer,omitempty"`
	At       time.Time `json:"at"`
}

func newRecordCmd(s *streams) *cobra.Command {
	var asJSON bool
	var verdict, expect, reviewer string
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "record ID --verdict SAFE-TO-PROPOSE|SUSPECT|BLOCK --expect-digest blake3:<hex>",
		Short: "Bind a reviewer's verdict to the exact digest reviewed",
		Long: `record re-observes the candidate ID (a unique prefix is enough) and binds
the verdict to its digest.

SAFE-TO-PROPOSE needs --expect-digest (the digest that was reviewed) and is
refused for a candidate that is partial, anomalous or has a hidden name.
SUSPECT and BLOCK are always recordable, on any tree. With --expect-digest,
a candidate whose content is no longer the reviewed one is refused.

Exit 0 recorded, 2 usage error, 3 refused (content changed or unsafe
tree), 4 store unusable.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			// The verdict is judged first, then the digest's spelling. A
			// malformed --expect-digest still counts as given.
			want, bad := expectDigest(expect)
			if err := baseline.CheckRequest(verdict, want); err != nil {
				return refusal(err, "", nil)
			}
			if bad != nil {
				return bad
			}
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			keep := w.keeper(&cfg, nil)
			defer collect(s, keep) // after the store is closed
			res, err := review.Record(cmd.Context(), review.Request{
				Store: w.opts(true, false),
				Find: func(st *baseline.Store) (review.Candidate, error) {
					ref, err := w.resolve(st, args[0])
					return review.Candidate{ID: ref.id, Root: ref.root, Name: ref.name}, err
				},
				Verdict:  verdict,
				Expect:   want,
				Reviewer: reviewer,
				Walk:     cfg,
				Keeper:   keep,
			})
			if ee := (*exitError)(nil); errors.As(err, &ee) {
				return err
			} else if err != nil {
				return refusal(err, res.ID, res.Observed)
			}
			if res.EventErr != nil {
				fmt.Fprintf(s.err, "skillwire: the fleet event of the verdict was not written: %s\n", defang(res.EventErr.Error()))
			}
			out := recordJSON{Recorded: res.ID, Verdict: verdict, Digest: hashString(res.Verdict.Digest), Reasons: nonNil(walkerReasons(res.Observed))}
			if r := res.Replaced; r != nil {
				out.Replaced = &replacedJSON{Verdict: r.Verdict, Digest: hashString(r.Digest), Reviewer: r.Reviewer, At: r.At}
			}
			if asJSON {
				return writeJSON(s.out, out)
			}
			fmt.Fprintf(s.out, "recorded %s for %s (%s) at %s\n", verdict, res.ID, w.refName(candidateRef{res.ID, res.Root, res.Name}), orDash(out.Digest))
			if r := out.Replaced; r != nil {
				fmt.Fprintf(s.out, "replaces %s recorded %s", r.Verdict, r.At.Format(time.RFC3339))
				if r.Reviewer != "" {
					fmt.Fprintf(s.out, " by %s", r.Reviewer)
				}
				fmt.Fprintln(s.out)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().StringVar(&verdict, "verdict", "", "SAFE-TO-PROPOSE, SUSPECT or BLOCK")
	cmd.Flags().StringVar(&expect, "expect-digest", "", "the digest that was reviewed (blake3:<hex>)")
	cmd.Flags().StringVar(&reviewer, "reviewer", "", "who reviewed (stored as printable ASCII, at most 200 characters)")
	bf.add(cmd)
	return cmd
}

// refusal says why a verdict was not recorded, in words for the reviewer.
// The exit code is the refusal's kind: 2 a bad request, 3 the tree.
func refusal(err error, id string, c *walker.Candidate) error {
	code := exitCode(err, exitInternal)
	switch {
	case errors.Is(err, baseline.ErrBadVerdict):
		return fail(code, "--verdict must be SAFE-TO-PROPOSE, SUSPECT or BLOCK")
	case errors.Is(err, baseline.ErrNoExpectDigest):
		return fail(code, "SAFE-TO-PROPOSE needs --expect-digest: the digest that was reviewed")
	case errors.Is(err, baseline.ErrPartial):
		return fail(code, "refused: %s could not be fully observed (partial), so its digest cannot be checked", id)
	case errors.Is(err, baseline.ErrDigestMismatch):
		return fail(code, "refused: %s is no longer the reviewed content; its digest is now %s", id, c.Digest)
	case errors.Is(err, baseline.ErrAnomalous):
		return fail(code, "refused: SAFE-TO-PROPOSE cannot be recorded on %s, which is %s; record SUSPECT or BLOCK instead",
			id, anomaly.Join(walker.Reasons(c.Anomalies())))
	}
	return storeErr(err)
}

func hashString(h *snapshot.Hash) *string {
	if h == nil {
		return nil
	}
	s := h.String()
	return &s
}

// expectDigest is the digest --expect-digest gives, nil when not given. A
// malformed one is still given: want is set, and bad is the usage failure.
func expectDigest(expect string) (want *snapshot.Hash, bad error) {
	if expect == "" {
		return nil, nil
	}
	h, err := snapshot.ParseHash(expect)
	if err != nil {
		bad = fail(exitUsage, "--expect-digest must be blake3: and 64 lowercase hex digits")
	}
	return &h, bad
}
