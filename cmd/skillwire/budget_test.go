package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/walker"
)

func TestBudgetHelpStatesTheWalkersDefaults(t *testing.T) {
	for _, cmd := range []string{"digest", "scan", "list", "check"} {
		t.Run(cmd, func(t *testing.T) {
			var out, errw bytes.Buffer
			if rc := run([]string{cmd, "--help"}, strings.NewReader(""), &out, &errw); rc != 0 {
				t.Fatalf("exit %d: %s", rc, errw.String())
			}
			help := strings.Join(strings.Fields(out.String()), " ")
			for _, want := range []string{
				"SKILLWIRE_MAX_ENTRIES, else " + strconv.FormatInt(walker.DefaultBudget.MaxEntries, 10) + ")",
				"SKILLWIRE_MAX_BYTES, else " + sizeText(walker.DefaultBudget.MaxBytes) + ")",
			} {
				if !strings.Contains(help, want) {
					t.Errorf("help lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

func TestSizeTextUsesTheLargestExactUnit(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{1 << 30, "1 GiB"}, {3 << 30, "3 GiB"}, {1536 << 20, "1536 MiB"}, {64 << 10, "64 KiB"},
		{1000, "1000 bytes"}, {0, "0 bytes"},
	} {
		if got := sizeText(tc.n); got != tc.want {
			t.Errorf("sizeText(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
