package shellcmd

import (
	"errors"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// nestings are the constructs the parser recurses on, n levels deep. Each
// names the bound it meets (issue #31: 150,000 $( killed the gate).
var nestings = []struct {
	name string
	line func(n int) string
}{
	{"$(", func(n int) string { return "echo " + rep("$(", n) + "skillwire record x" + rep(")", n) }},
	{"(", func(n int) string { return rep("( ", n) + "skillwire record x" + rep(" )", n) }},
	{"{", func(n int) string { return rep("{ ", n) + "skillwire record x;" + rep(" }", n) }},
	{"`", func(n int) string { return "echo " + rep("`", 1) + rep("$(", n) + "x" + rep(")", n) + "`" }},
	{`"$(`, func(n int) string { return "echo " + rep(`"$(`, n) + "x" + rep(`)"`, n) }},
	{"${", func(n int) string { return "echo " + rep("${a:-", n) + "x" + rep("}", n) }},
	{"<(", func(n int) string { return "cat " + rep("<(", n) + "true" + rep(")", n) }},
	{"$((", func(n int) string { return "echo $((" + rep("(", n) + "1" + rep(")", n) + "))" }},
	{"$(( 1+", func(n int) string { return "echo $((" + rep("1+", n) + "1))" }},
	{"$(( 1?", func(n int) string { return "echo $((" + rep("1?", n) + "1" + rep(":1", n) + "))" }},
	{"a[", func(n int) string { return "a" + rep("[a", n) + rep("]", n) + "=1" }},
	{"let", func(n int) string { return "let " + rep("1+", n) + "1" }},
	{"[[ !", func(n int) string { return "[[ " + rep("! ", n) + "a ]]" }},
	{"[[ (", func(n int) string { return "[[ " + rep("( ", n) + "a" + rep(" )", n) + " ]]" }},
	{"if", func(n int) string { return rep("if ", n) + "true" + rep("; then :; fi", n) }},
	{"while", func(n int) string { return rep("while ", n) + "true" + rep("; do :; done", n) }},
	{"for", func(n int) string { return rep("for a in b; do ", n) + ":" + rep("; done", n) }},
	{"case", func(n int) string { return rep("case x in x) ", n) + "true" + rep(" ;; esac", n) }},
	{"|", func(n int) string { return rep("cat | ", n) + "skillwire record x" }},
	{"| newline", func(n int) string { return rep("cat |\n", n) + "skillwire record x" }},
	{"&&", func(n int) string { return rep("true && ", n) + "skillwire record x" }},
	{"f()", func(n int) string { return rep("f() ", n) + "{ :; }" }},
	{"time", func(n int) string { return rep("time ", n) + "true" }},
	{"<<EOF $(", func(n int) string { return "cat <<EOF\n" + rep("$(", n) + "x" + rep(")", n) + "\nEOF" }},
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

// At each nesting's bound the line is read. One level past it the line is
// not read: it is unknown (ErrTooDeep).
func TestALineAtTheDepthBoundIsReadAndPastItIsUnread(t *testing.T) {
	for _, tc := range nestings {
		t.Run(tc.name, func(t *testing.T) {
			n := 1
			for depth(tc.line(n+1)) <= MaxDepth {
				n++
			}
			if n < MaxDepth/4 {
				t.Fatalf("bound at %d levels: depth over-counts %q", n, tc.line(2))
			}
			if _, _, err := Decision(tc.line(n)); err != nil {
				t.Errorf("%d levels, at the bound: %v", n, err)
			}
			if _, ok, err := Decision(tc.line(n + 1)); !errors.Is(err, ErrTooDeep) || ok {
				t.Errorf("%d levels, past the bound: %v, %v; want ErrTooDeep", n+1, ok, err)
			}
		})
	}
}

// The line and its kin are refused, however deep. None is parsed,
// so none can overflow the stack.
func TestANestedLineOfAnySizeIsUnread(t *testing.T) {
	for _, tc := range nestings {
		for _, n := range []int{1_000, 10_000, 150_000} {
			line := tc.line(n)
			_, ok, err := Decision(line)
			want := ErrTooDeep
			if len(line) > MaxBytes {
				want = ErrTooLarge
			}
			if !errors.Is(err, want) || ok {
				t.Errorf("%s ×%d: %v, %v; want %v", tc.name, n, ok, err, want)
			}
		}
	}
}

// A line of MaxBytes is read. One byte more is not (ErrTooLarge).
func TestALineAtTheSizeBoundIsReadAndPastItIsUnread(t *testing.T) {
	for _, tc := range []struct {
		name string
		line func(n int) string
	}{
		{"long word", func(n int) string { return "echo " + rep("a", n-5) }},
		{"many commands", func(n int) string { return rep(";", n%8) + rep("echo a; ", n/8) }},
		{"quoted here-document", func(n int) string {
			return "cat <<'EOF'\n" + rep("(", n-16) + "\nEOF"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if at := tc.line(MaxBytes); len(at) != MaxBytes {
				t.Fatalf("the line at the bound is %d bytes", len(at))
			}
			if _, _, err := Decision(tc.line(MaxBytes)); err != nil {
				t.Errorf("at the bound: %v", err)
			}
			if _, _, err := Decision(tc.line(MaxBytes + 1)); !errors.Is(err, ErrTooLarge) {
				t.Errorf("past the bound: %v; want ErrTooLarge", err)
			}
			if _, _, err := Decision(tc.line(1 << 20)); !errors.Is(err, ErrTooLarge) {
				t.Errorf("1 MiB: %v; want ErrTooLarge", err)
			}
		})
	}
}

// Brace expansion doubles with every pair: 762 bytes once took 3.5 s.
// sudo eval sudo eval … rereads its words at every nesting: 400 bytes
// took 10 s. Past the budget the line is unread (ErrTooWide), not let
// through.
func TestAnExpansionPastTheBudgetIsUnread(t *testing.T) {
	for _, tc := range []struct {
		line string
		want error
	}{
		{"mkdir -p src/{a,b,c}/{x,y,z}", nil},
		{"echo {1..4097}", nil}, // 4097 words: the first is free
		{"echo {1..4098}", ErrTooWide},
		{"ls " + rep("{a,b}", 15) + "; skillwire record x", ErrTooWide},
		{"ls" + rep(" "+rep("{a,b}", 6), 64) + "; skillwire record x", nil},
		{"ls" + rep(" "+rep("{a,b}", 6), 66) + "; skillwire record x", ErrTooWide},
		{"echo {" + rep("a", 30000) + ",b}{c,d}{e,f}{g,h}{i,j}", ErrTooWide}, // too many bytes
		{"sh -c " + rep("{a,b}", 13), ErrTooWide},
		{rep("sudo eval ", 40), ErrTooWide},
		{"sh -c '" + rep("a", MaxBytes-20) + "'", nil}, // read twice
	} {
		_, _, err := Decision(tc.line)
		if !errors.Is(err, ErrUnread) && tc.want != nil || tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("Decision(%.60q) = %v; want %v", tc.line, err, tc.want)
		}
	}
}

// The lines a person's session runs stay well within the bounds: brackets
// in quotes, comments and here-documents do not count.
func TestOrdinaryLinesAreRead(t *testing.T) {
	python := "cat > x.py <<'EOF'\n" + rep("def f(a):\n    if a:\n        for b in a:\n            while b:\n                print(\"(\", [b])\n", 400) + "EOF"
	prose := "git commit -m '" + rep("if this, then that; for each case, while done (see [1]: {x}).\n", 300) + "'"
	script := "cat > x.sh <<EOF\n" + rep("if [ -f \"$(basename \"$f\")\" ]; then\n  echo \"${a:-$(date)}\"\nfi\n", 500) + "EOF"
	for _, tc := range []struct{ name, line string }{
		{"python here-document", python},
		{"prose in a commit message", prose},
		{"script here-document", script},
		{"json", "curl -d '" + rep(`{"a":[{"b":{"c":[1,2,{"d":"(("}]}}]},`, 500) + "' x"},
		{"lisp", "cat <<'EOF' > x.el\n" + rep("(", 100) + rep(")", 100) + "\nEOF"},
		{"comment", "ls # " + rep("((((", 100)},
		{"pipeline", "git log --oneline | grep -v x | sort | uniq -c | sort -rn | head -20 && echo done"},
		{"loop", "for f in *.go; do if grep -q x \"$f\"; then echo \"$f\"; fi; done"},
	} {
		d := depth(tc.line)
		_, _, err := Decision(tc.line)
		if d > MaxDepth/4 || err != nil {
			t.Errorf("%s (%d bytes): depth %d, %v", tc.name, len(tc.line), d, err)
		}
	}
}

// An unread line is no decision: Decision names none.
func TestAnUnreadLineNamesNoDecision(t *testing.T) {
	what, ok, err := Decision(rep("$(", 200) + "skillwire record x")
	if what != "" || ok || err == nil {
		t.Errorf("%q, %v, %v", what, ok, err)
	}
}

// FuzzBound repeats a unit up to the size bound: fuzzed nesting at scale.
// No line panics or overflows the stack. An accepted line's tree is as deep
// as depth allows, at most: depth measures what the parser does.
func FuzzBound(f *testing.F) {
	for _, tc := range nestings {
		f.Add(tc.line(1), uint16(300), "")
	}
	for _, s := range []string{"$( echo ')' ", "{ echo }; ", "a=(", "`", "\\\n", "<<E\n", "$'\\''$(", "#\n$("} {
		f.Add(s, uint16(300), "skillwire record x")
	}
	f.Fuzz(func(t *testing.T, unit string, n uint16, tail string) {
		if len(unit) == 0 || len(unit)*int(n) > 2*MaxBytes {
			return
		}
		line := rep(unit, int(n)) + tail
		what, ok, err := Decision(line)
		if err != nil && (ok || what != "") {
			t.Fatalf("an unread line named %q", what)
		}
		checkTreeWithinDepth(t, line)
	})
}

// checkTreeWithinDepth fails when line passes bounded yet its syntax tree
// is deeper than treeDepthPerLevel per level depth counted.
func checkTreeWithinDepth(t *testing.T, line string) {
	t.Helper()
	if bounded(line) != nil {
		return
	}
	d := depth(line)
	if tree := treeDepth(line); tree > treeDepthPerLevel*(d+1)+8 {
		t.Fatalf("depth %d, syntax tree %d deep: %q", d, tree, line)
	}
}

// treeDepthPerLevel is how many tree nodes one counted level makes, at most:
// $( is a CmdSubst, a Stmt, a CallExpr and a Word.
const treeDepthPerLevel = 5

func treeDepth(line string) int {
	f, _ := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if f == nil {
		return 0
	}
	d, deepest := 0, 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			d--
			return true
		}
		d++
		deepest = max(deepest, d)
		return true
	})
	return deepest
}

// The worst lines Decision reads: each nesting at its bound, and the
// widest flat line and expansion.
func BenchmarkDecisionWorstAccepted(b *testing.B) {
	worst := map[string]string{
		"flat":   rep("echo a; ", MaxBytes/8),
		"words":  "echo" + rep(" a", MaxBytes/2-3),
		"braces": "echo {1..4097}",
		"eval":   rep("sudo eval ", 9),
		"sudo x": rep("sudo x ", MaxBytes/7),
		"sudo $": rep("sudo $a ", MaxBytes/8),
	}
	for _, tc := range nestings {
		n := 1
		for depth(tc.line(n+1)) <= MaxDepth {
			n++
		}
		worst["nest "+tc.name] = tc.line(n)
	}
	for name, line := range worst {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Decision(line)
			}
		})
	}
}

// BenchmarkDepth measures the pre-scan on a line of MaxBytes.
func BenchmarkDepth(b *testing.B) {
	line := rep(`echo "$(a | b)" && [[ x ]]; `, MaxBytes/28)
	for b.Loop() {
		depth(line)
	}
}
