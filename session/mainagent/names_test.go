package mainagent

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/skillwire/skillwire/baseline"
)

// fitsAsStated checks fitOf against its definition, and that no name
// built from hostile bytes gets out of Shown unescaped.
func fitsAsStated(t *testing.T, full, n string) {
	f := fitOf(full, n)
	if (f == exact) != (full == n) {
		t.Fatalf("fitOf(%q, %q) = %v: exact only when equal", full, n, f)
	}
	if f == suffix && !strings.HasSuffix(full, ":"+n) || f == none && full != n && strings.HasSuffix(full, ":"+n) {
		t.Fatalf("fitOf(%q, %q) = %v: a suffix is one after a colon", full, n, f)
	}
	for _, r := range Shown(n) {
		if unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control) || r == unicode.ReplacementChar {
			t.Fatalf("Shown(%q) lets %U out", n, r)
		}
	}
}

// Hostile settings names and agent names: control bytes, a bidi
// override, huge names, many colons, empty parts. Matching stays as
// stated, Shown hides or escapes every one, and nothing takes long.
func TestHostileAgentNamesMatchAsStatedAndAreNeverShownRaw(t *testing.T) {
	colons := strings.Repeat(":", 1<<16)
	huge := strings.Repeat("a", 1<<20)
	names := []string{"", ":", "::", colons, colons + "x", "x" + colons, huge, huge + ":" + huge, "plug:\x1b[31mred", "\x00", "a\u202eb",
		"plug:" + strings.Repeat("sub:", 1<<14) + "x", "plug:\xff", "plug:a\nb", strings.Repeat("é", 300)}
	start := time.Now()
	for _, full := range names {
		for _, n := range names {
			fitsAsStated(t, full, n)
		}
		fitsAsStated(t, pluginAgentName("plug", "sub/"+full+".md", full), full)
	}
	// Through Of, against a plugin's agents read from disk: the settings'
	// name as the JSON escapes it.
	plug := cachedPlugin(t)
	for _, n := range names {
		raw, _ := json.Marshal(n)
		var want string // JSON holds no invalid UTF-8
		_ = json.Unmarshal(raw, &want)
		cfg := settings("")
		cfg.Observed.Canonical = []byte(`{"agent":` + string(raw) + `}`)
		ms := Of([]baseline.Standing{cfg, *plug})
		if n == "" && len(ms) != 0 || n != "" && (len(ms) != 1 || ms[0].Name != want || len(ms[0].Agents)+len(ms[0].Unread) != 0) {
			t.Errorf("Of a hostile name %.40q: %d matches", n, len(ms))
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("hostile names took %v", d)
	}
	// A frontmatter name past 256 UTF-16 units is the client's stem.
	if got := pluginAgentName("plug", "a/b.md", strings.Repeat("é", 257)); got != "plug:a:b" {
		t.Errorf("a long name: %q", got)
	}
	if got := pluginAgentName("plug", "b.md", strings.Repeat("😀", 128)); got != "plug:"+strings.Repeat("😀", 128) {
		t.Errorf("256 units of surrogate pairs: %q", got)
	}
}

func FuzzFitOf(f *testing.F) {
	for _, s := range [][2]string{{"plug:sub:x", "x"}, {"plug:x", "plug:x"}, {"a::b", ":b"}, {"\x1b:x", "x"}, {"x", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, full, n string) {
		fitsAsStated(t, full, n)
		fitsAsStated(t, pluginAgentName("plug", full+".md", n), n)
	})
}
