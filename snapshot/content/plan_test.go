package content

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/skillwire/skillwire/snapshot"
)

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// v is version n of candidate c, kept n hours after t0, with own bytes.
// Its objects are named by small integers, 100 bytes each.
func v(c string, n int, protected bool, own int64, objs ...byte) VersionInfo {
	vi := VersionInfo{Ref: ref(c, n), Kept: t0.Add(time.Duration(n) * time.Hour), Protected: protected, Bytes: own}
	for _, o := range objs {
		vi.Objects = append(vi.Objects, Object{Key: snapshot.Hash{o}, Bytes: 100})
	}
	return vi
}

func ref(c string, n int) VersionRef { return VersionRef{Candidate: c, Digest: snapshot.Hash{byte(n)}} }

func TestPlan(t *testing.T) {
	var twelve []VersionInfo
	for n := 1; n <= 12; n++ {
		twelve = append(twelve, v("a", n, n == 1, 10))
	}
	for _, tc := range []struct {
		name     string
		versions []VersionInfo
		cap      int64
		per      int
		want     []VersionRef
	}{
		{"under both limits nothing is dropped",
			[]VersionInfo{v("a", 1, false, 10, 1), v("a", 2, false, 10, 2)}, 1000, 10, nil},
		{"beyond the last N of a candidate the oldest unprotected go",
			twelve, 0, 10, []VersionRef{ref("a", 2)}},
		{"protected versions count among the last N but are never dropped",
			append([]VersionInfo{v("a", 0, true, 10)}, twelve...), 0, 10, []VersionRef{ref("a", 2)}},
		{"the count is per candidate",
			[]VersionInfo{v("a", 1, false, 1), v("a", 2, false, 1), v("b", 3, false, 1)}, 0, 1, []VersionRef{ref("a", 1)}},
		{"over the cap the oldest unprotected of any candidate goes first",
			[]VersionInfo{v("b", 3, false, 0, 3), v("a", 1, false, 0, 1), v("a", 2, false, 0, 2)}, 200, 10,
			[]VersionRef{ref("a", 1)}},
		{"over the cap protected versions stay even when the cap cannot be met",
			[]VersionInfo{v("a", 1, true, 0, 1), v("a", 2, true, 0, 2), v("a", 3, false, 0, 3)}, 100, 10,
			[]VersionRef{ref("a", 3)}},
		{"a shared object counts once and frees nothing until its last user goes",
			[]VersionInfo{v("a", 1, false, 0, 1, 9), v("a", 2, false, 0, 2, 9), v("a", 3, false, 0, 3)}, 200, 10,
			[]VersionRef{ref("a", 1), ref("a", 2)}},
		{"own bytes count toward the cap",
			[]VersionInfo{v("a", 1, false, 500), v("a", 2, false, 10)}, 100, 10, []VersionRef{ref("a", 1)}},
		{"versions dropped by count free bytes before the cap is applied",
			[]VersionInfo{v("a", 1, false, 0, 1), v("a", 2, false, 0, 2)}, 100, 1, []VersionRef{ref("a", 1)}},
		{"ties in age break by candidate then digest",
			[]VersionInfo{v("b", 1, false, 100), v("a", 1, false, 100)}, 100, 0, []VersionRef{ref("a", 1)}},
		{"a repeated version counts once",
			[]VersionInfo{v("a", 1, false, 100), v("a", 1, false, 100)}, 100, 0, nil},
		{"zero cap and count disable both rules",
			twelve, 0, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.versions)
			got := Plan(tc.versions, tc.cap, tc.per)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Plan = %v; want %v", got, tc.want)
			}
			if !slices.EqualFunc(in, tc.versions, func(a, b VersionInfo) bool { return a.Ref == b.Ref }) {
				t.Fatal("Plan reordered its input")
			}
		})
	}
}

func TestMaxBytes(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want int64
		err  bool
	}{
		{"", DefaultMaxBytes, false},
		{"1048576", 1 << 20, false},
		{"0", 0, true},
		{"-5", 0, true},
		{"+5", 0, true},
		{"512MiB", 0, true},
		{" 5", 0, true},
		{"99999999999999999999", 0, true},
	} {
		t.Run(tc.env, func(t *testing.T) {
			got, err := MaxBytes(tc.env)
			if got != tc.want || (err != nil) != tc.err || (err != nil && !errors.Is(err, ErrMaxBytes)) {
				t.Fatalf("MaxBytes(%q) = %d, %v", tc.env, got, err)
			}
		})
	}
}
