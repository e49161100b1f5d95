package legacy

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
)

// A skipped key is shown to a person. It is either a well-formed key or the
// placeholder safeKey makes, never the file's own text.
var shownKey = regexp.MustCompile(`^((global|project)\|[0-9a-f]{64}|\(malformed key [0-9a-f]{12}\))$`)

func FuzzParse(f *testing.F) {
	good := KeyOf(claude.Global, []byte("pdf"))
	f.Add([]byte(`{"schema": 3, "policy": "p", "entries": {"`+good+`": {"digest": "sha256:00", "status": "vetted", "verdict": "BLOCK"}}}`), []byte("pdf"))
	f.Add([]byte(`{"schema": 1, "entries": {"world|$(rm -rf ~)": {"status": "seen"}, "`+good+`": {"verdict": "MAYBE"}}}`), []byte("\x1b]0;x\a"))
	f.Add([]byte(`{"schema": null, "entries": {"project|`+strings.Repeat("A", 64)+`": {"verdict": null}}}`), []byte{})
	f.Add([]byte(`{"schema": 1, "entries": {"a": 1}}`), []byte("a"))
	f.Add([]byte(`{"schema": 1, "entries": {"`+good+`": {}, "`+good+`": {"verdict": "SUSPECT"}}}`), []byte("pdf"))
	f.Add([]byte(`[]`), []byte(".."))
	f.Fuzz(func(t *testing.T, b, name []byte) {
		entries, skipped, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrLegacy) || entries != nil || skipped != nil {
				t.Fatalf("refusal %v returned entries %v, skipped %v", err, entries, skipped)
			}
		} else {
			checkLegacy(t, entries, skipped)
			// Every key is either kept or skipped with a reason, never
			// silently dropped. Distinct malformed keys share a shown key
			// only on a 48-bit hash collision.
			var f struct{ Entries map[string]json.RawMessage }
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatalf("accepted what encoding/json refuses: %v", err)
			}
			if len(entries)+len(skipped) != len(f.Entries) {
				t.Fatalf("%d keys, %d kept, %d skipped", len(f.Entries), len(entries), len(skipped))
			}
			// What was kept survives a second reading unchanged.
			again, skipped2, err := Parse(encodeLegacy(t, entries))
			if err != nil || len(skipped2) != 0 || !slices.Equal(again, entries) {
				t.Fatalf("round trip: %v, skipped %v, %+v != %+v", err, skipped2, again, entries)
			}
		}
		// The key of any name, however hostile, is accepted as it is.
		for _, scope := range []claude.Scope{claude.Global, claude.Project} {
			k := KeyOf(scope, name)
			got, skip, err := Parse(encodeLegacy(t, []Entry{{Key: k, Status: "seen", Verdict: verdict.Block}}))
			if err != nil || len(skip) != 0 || len(got) != 1 || got[0].Key != k || got[0].Verdict != verdict.Block {
				t.Fatalf("key of %q: %v, skipped %v, %+v", name, err, skip, got)
			}
		}
	})
}

func checkLegacy(t *testing.T, entries []Entry, skipped map[string]string) {
	t.Helper()
	for i, e := range entries {
		if !shownKey.MatchString(e.Key) || strings.HasPrefix(e.Key, "(") {
			t.Fatalf("kept a malformed key %q", e.Key)
		}
		if e.Verdict != "" && !verdict.Valid(e.Verdict) {
			t.Fatalf("kept an unknown verdict %q", e.Verdict)
		}
		if i > 0 && entries[i-1].Key >= e.Key {
			t.Fatalf("entries not sorted by unique key: %q then %q", entries[i-1].Key, e.Key)
		}
	}
	for k, why := range skipped {
		if !shownKey.MatchString(k) || why == "" {
			t.Fatalf("skipped key shown as %q (reason %q)", k, why)
		}
	}
}

func encodeLegacy(t *testing.T, entries []Entry) []byte {
	t.Helper()
	type rec struct {
		Digest  string  `json:"digest"`
		Status  string  `json:"status"`
		Verdict *string `json:"verdict,omitempty"`
	}
	m := map[string]rec{}
	for _, e := range entries {
		r := rec{Digest: "sha256:00", Status: e.Status}
		if e.Verdict != "" {
			r.Verdict = &e.Verdict
		}
		m[e.Key] = r
	}
	b, err := json.Marshal(map[string]any{"schema": 3, "policy": "p", "entries": m})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
