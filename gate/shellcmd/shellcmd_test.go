package shellcmd

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

func TestDecisionIsAskedWhereverTheLineRunsIt(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string // "" for no decision
	}{
		{"skillwire record sw123 --verdict SAFE-TO-PROPOSE --expect-digest blake3:00", "record"},
		{"/usr/local/bin/skillwire record sw1", "record"},
		{"./bin/skillwire trust add ci-bot", "trust add"},
		{"skillwire trust remove x", "trust remove"},
		{"skillwire trust list", ""},
		{"skillwire gate policy audit", "gate policy"},
		{"skillwire gate policy", ""},
		{"skillwire gate policy --json", ""},
		{"skillwire forget sw1 --yes", "forget"},
		{"skillwire clear", ""},
		{"skillwire clear --events --yes", "clear --events"},
		{"skillwire restore sw1 --yes", "restore"},
		{"skillwire audit append --source ci --path x", "audit append"},
		{"skillwire audit show", ""},
		{"skillwire hook uninstall --yes", "hook uninstall"},
		{"skillwire import --from x", "import"},
		{"skillwire status", ""},
		{"skillwire list --json", ""},
		{"skillwire diff sw1", ""},
		{"'skillwire' \"record\" sw1", "record"},
		{"cd /tmp && skillwire record sw1", "record"},
		{"true; skillwire record sw1", "record"},
		{"echo hi | skillwire record sw1", "record"},
		{"x=$(skillwire record sw1)", "record"},
		{"echo `skillwire record sw1`", "record"},
		{"f() { skillwire record sw1; }; f", "record"},
		{"if true; then skillwire trust add a; fi", "trust add"},
		{"( skillwire record sw1 )", "record"},
		{"SKILLWIRE_STATE_DIR=/x skillwire record sw1", "record"},
		{"env -i PATH=/bin skillwire record sw1", "record"},
		{"sudo -u root skillwire record sw1", "record"},
		{"timeout 5 skillwire record sw1", "record"},
		{"nohup nice -n 5 skillwire record sw1 &", "record"},
		{"echo sw1 | xargs skillwire record", "record"},
		{"sh -c 'skillwire record sw1'", "record"},
		{`bash -lc "skillwire trust add x"`, "trust add"},
		{`sh -c "sh -c 'skillwire record x'"`, "record"},
		{"eval skillwire record sw1", "record"},
		{`eval "$CMD"`, "eval of a string skillwire cannot read"},
		{`sh -c "$CMD"`, "a shell running a string skillwire cannot read"},
		{"$SW record sw1", "record"},
		{`"$(command -v skillwire)" record sw1`, "record"},
		{"skillwire $SUB sw1", "skillwire with a subcommand it cannot read"},
		{"skillwire trust $X", "trust "},
		{"skillwire record 'unclosed", "a command line that does not parse"},
		{`skill\wire record sw1`, "record"},
		{`skill''wire record sw1`, "record"},
		{"skillwire.exe record sw1", "record"},
		// Review finding 9: forms that were missed.
		{`env -S "skillwire record sw1"`, "record"},
		{`env --split-string="skillwire record sw1"`, "record"},
		{"echo record sw1 | xargs skillwire", "skillwire given its arguments by xargs"},
		{"xargs -a args.txt skillwire", "skillwire given its arguments by xargs"},
		{`bash -c -- "skillwire record sw1"`, "record"},
		{`bash -c -x "skillwire record sw1"`, "record"},
		{`sh -c -e "skillwire record sw1"`, "record"},
		{"bash <<EOF\nskillwire record sw1\nEOF", "a shell reading its commands from elsewhere"},
		{"echo 'skillwire record sw1' | sh", "a shell reading its commands from elsewhere"},
		{"sh <(echo skillwire record sw1)", "a shell reading its commands from elsewhere"},
		{`trap "skillwire record sw1" EXIT`, "record"},
		{"find . -name x -exec skillwire record {} ';'", "record"},
		{`su -c "skillwire record sw1" me`, "record"},
		{`script -qc "skillwire record sw1" /dev/null`, "record"},
		{`watch skillwire record sw1`, "record"},
		{`alias x="skillwire record sw1"; x`, "record"},
		{"sh build.sh", ""},
		{"bash", ""},
		{"cat skillwire.md", ""},
		{"echo skillwire record sw1", ""},
		// git runs "!" aliases and pagers from its arguments. A line that
		// names skillwire in them is asked (second review).
		{"git commit -m 'skillwire record sw1'", "record"},
		{"git -c alias.r='!skillwire record foo' r", "record"},
		{"{skillwire,record} foo", "record"},
		{"skillwire {record,x} foo", "record"},
		{"/tmp/fakebin/skillwi?e record foo", "record"},
		{"source <(echo skillwire record foo)", "a shell reading its commands from elsewhere"},
		{`. /dev/stdin <<< "skillwire record foo"`, "a shell reading its commands from elsewhere"},
		// wrapped reads a word once when a later one would read the same.
		// What it finds is unchanged.
		{"sudo rm a b skillwire record x", "record"},
		{"sudo x y sh -c 'skillwire record a'", "record"},
		{"sudo sh x sh -c 'skillwire record a'", "record"},
		{"sudo sh -c 'echo' sh -c 'skillwire record a'", "record"},
		{"sudo x $Y record a", "record"},
		{"sudo x eval skillwire record a", "record"},
		{"cat input.json | skillwire hook post-tool-use", "hook post-tool-use"},
		{"skillwire hook pre-tool-use", ""},
		{"cat README.md", ""},
		{"$EDITOR notes.txt", ""},
		{"ls 'unclosed", ""},
		{"", ""},
	} {
		what, ok, err := Decision(tc.line)
		if err != nil || ok != (tc.want != "") || ok && what != tc.want {
			t.Errorf("Decision(%q) = %q, %v, %v; want %q", tc.line, what, ok, err, tc.want)
		}
	}
}

// A hostile line within the bounds is answered: deep sh -c nesting, many
// wrappers, long. A line naming skillwire past the sh -c bound is asked.
// Lines past MaxBytes or MaxDepth are bound_test.go's.
func TestDecisionIsBoundedOnHostileLines(t *testing.T) {
	nested := "skillwire record x"
	for range 8 {
		nested = "sh -c " + shellQuote(nested)
	}
	if _, ok, _ := Decision(nested); !ok {
		t.Errorf("a decision nested past the bound was let through")
	}
	wrappers := strings.Repeat("sudo ", 12000) + "skillwire record x"
	if _, ok, _ := Decision(wrappers); !ok {
		t.Errorf("a decision behind 12,000 wrappers was let through")
	}
	if _, ok, _ := Decision(strings.Repeat("echo a; ", 8000)); ok {
		t.Errorf("a long harmless line was asked")
	}
	for _, b := range []string{"\x00", "\x1b[2J", "\u202e", "\xff\xfe"} {
		Decision("skillwire " + b + " record")
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func FuzzDecision(f *testing.F) {
	for _, s := range []string{"skillwire record x", "sh -c 'skillwire trust add y'", "sudo -u r skillwire gate policy audit", "echo hi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		what, ok, err := Decision(line)
		if err != nil && (ok || what != "") {
			t.Errorf("an unread line named %q", what)
		}
		checkTreeWithinDepth(t, line)
		checkPlainWords(t, line)
		if !ok && what != "" {
			t.Errorf("no decision but a name: %q", what)
		}
		if ok && !strings.Contains(line, "skillwire") && !strings.ContainsAny(line, "$`\\'\"*?[") {
			// No decision runs without skillwire's name, an expansion, a
			// glob, a quote or an escape. skill\wire is skillwire. sh -c *
			// runs a file's name.
			t.Errorf("Decision(%q) = %q without skillwire or an expansion in it", line, what)
		}
	})
}

// checkPlainWords fails when a word plain leaves alone expands otherwise.
func checkPlainWords(t *testing.T, line string) {
	t.Helper()
	f, _ := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if f == nil || bounded(line) != nil {
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok && plain(w) {
			if fs, err := expand.Fields(&expand.Config{}, w); err != nil || len(fs) != 1 || fs[0] != w.Lit() {
				t.Errorf("plain word %q expands to %q, %v", w.Lit(), fs, err)
			}
		}
		return true
	})
}
