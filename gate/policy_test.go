package gate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/hookio"
)

// TestDecideFollowsTheTable pins issue #16's table cell by cell: 7 states
// by 3 policies.
func TestDecideFollowsTheTable(t *testing.T) {
	const n, a, d = None, Ask, Deny
	rows := []struct {
		state State
		want  [3]Answer // audit, balanced, strict
	}{
		{Vetted, [3]Answer{n, n, n}},
		{Familiar, [3]Answer{n, n, a}},
		{New, [3]Answer{n, a, a}},
		{Pending, [3]Answer{n, a, d}},
		{Anomalous, [3]Answer{n, a, d}},
		{Suspect, [3]Answer{n, a, d}},
		{Blocked, [3]Answer{n, d, d}},
	}
	for _, row := range rows {
		for i, p := range []Policy{Audit, Balanced, Strict} {
			t.Run(fmt.Sprintf("%s under %s is %s", row.state, p, row.want[i]), func(t *testing.T) {
				if got := Decide(p, row.state); got != row.want[i] {
					t.Fatalf("got %s", got)
				}
			})
		}
	}
}

func TestDecideReadsAnInvalidPolicyAsStrict(t *testing.T) {
	for s := Vetted; s <= Blocked; s++ {
		for _, p := range []Policy{0, Strict + 1, 255} {
			if got, want := Decide(p, s), Decide(Strict, s); got != want {
				t.Errorf("policy %d, %s: got %s, want %s", p, s, got, want)
			}
		}
	}
}

func TestDecideJudgesAnInvalidStateAsAnomalous(t *testing.T) {
	for _, p := range []Policy{Audit, Balanced, Strict} {
		for _, s := range []State{0, Blocked + 1, 255} {
			if got, want := Decide(p, s), Decide(p, Anomalous); got != want {
				t.Errorf("%s, state %d: got %s, want %s", p, s, got, want)
			}
		}
	}
}

func TestPolicyTextRoundTrip(t *testing.T) {
	for _, p := range []Policy{Audit, Balanced, Strict} {
		b, err := p.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var q Policy
		if err := q.UnmarshalText(b); err != nil || q != p {
			t.Fatalf("%s: got %s, %v", p, q, err)
		}
	}
	if DefaultPolicy != Balanced {
		t.Fatalf("default is %s", DefaultPolicy)
	}
	for _, s := range []string{"", "Strict", "allow", " audit", "balanced\n"} {
		if _, err := ParsePolicy(s); !errors.Is(err, ErrPolicy) {
			t.Errorf("%q: %v", s, err)
		}
	}
	if _, err := Policy(0).MarshalText(); !errors.Is(err, ErrPolicy) {
		t.Errorf("zero policy marshalled: %v", err)
	}
}

func TestWorstAnswerWins(t *testing.T) {
	for _, tc := range []struct {
		in   []Answer
		want Answer
	}{
		{nil, None},
		{[]Answer{None, None}, None},
		{[]Answer{None, Ask, None}, Ask},
		{[]Answer{Ask, Deny, None}, Deny},
		{[]Answer{Deny, Ask}, Deny},
	} {
		if got := Worst(tc.in...); got != tc.want {
			t.Errorf("Worst(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestAnswerNeverMeansAllow(t *testing.T) {
	if _, ok := None.Decision(); ok {
		t.Fatal("None became a decision")
	}
	for a, want := range map[Answer]hookio.Decision{Ask: hookio.Ask, Deny: hookio.Deny} {
		if d, ok := a.Decision(); !ok || d != want {
			t.Errorf("%s: got %v, %v", a, d, ok)
		}
	}
}

func TestFailNeverOpensTheGateUnlessAudit(t *testing.T) {
	causes := map[string]error{
		"its deadline passed":          fmt.Errorf("walk: %w", ErrDeadline),
		"the store was locked or busy": fmt.Errorf("open: %w", ErrLocked),
		"an internal error":            errors.New("open /p/\x1b[31mevil: no such file"),
	}
	causes["its deadline passed "] = context.DeadlineExceeded
	for what, err := range causes {
		what = strings.TrimSpace(what)
		for _, tc := range []struct {
			p    Policy
			want Answer
		}{{Audit, None}, {Balanced, Ask}, {Strict, Deny}, {0, Deny}} {
			t.Run(what+" under "+tc.p.String(), func(t *testing.T) {
				f := fail(tc.p, err)
				if f.Answer != tc.want {
					t.Fatalf("answer %s, want %s", f.Answer, tc.want)
				}
				if !strings.Contains(f.Note, "("+what+")") {
					t.Fatalf("note %q does not say %q", f.Note, what)
				}
				if strings.Contains(f.Note, "evil") || strings.Contains(f.Note, "\x1b") {
					t.Fatalf("note quotes the error: %q", f.Note)
				}
			})
		}
	}
}
