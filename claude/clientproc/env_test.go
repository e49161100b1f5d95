package clientproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude"
)

// The switch of the added folders' instructions is read from two places.
// One is the environment the client started with. The other is the hook's
// own, where a settings env lands. Garbage, control bytes and a huge value
// are off. An environment that cannot be read is taken as on, told by
// Added. A process no client runs reads nothing.
func TestTheAddedInstructionsSwitchIsReadWhereTheClientReadsIt(t *testing.T) {
	const name = claude.EnvAddedInstructions
	dir := t.TempDir()
	client := []string{"CLAUDECODE", "1"}
	for _, c := range []struct {
		desc      string
		start     []string // the client's environ
		noEnviron bool
		hook      []string // the hook's own environment
		want      bool
	}{
		{desc: "unset", want: false},
		{desc: "on where the client started", start: []string{name + "=1"}, want: true},
		{desc: "on in the hook's environment", hook: []string{name, " TRUE "}, want: true},
		{desc: "off in both", start: []string{name + "=0"}, hook: []string{name, "false"}, want: false},
		{desc: "the first of a repeated name, as getenv", start: []string{name + "=1", name + "=0"}, want: true},
		{desc: "a longer name is not it", start: []string{name + "X=1"}, want: false},
		{desc: "control bytes", start: []string{name + "=1\x1b[0m"}, want: false},
		{desc: "not UTF-8", start: []string{name + "=\xff\xfe"}, want: false},
		{desc: "huge", start: []string{name + "=" + strings.Repeat("1", 1<<16)}, want: false},
		{desc: "the environment cannot be read", noEnviron: true, want: true},
	} {
		t.Run(c.desc, func(t *testing.T) {
			chain := hookChain("claude", "/x/claude", dir)
			chain[0].env = append(chain[0].env, c.start...)
			chain[0].noEnviron = c.noEnviron
			fp := newFakeProc(t, chain...)
			env := envOf(append(append([]string{}, client...), c.hook...)...)
			cl := Client{Proc: fp.dir, Parent: 200}
			if got := cl.AddedInstructions(env); got != c.want {
				t.Errorf("AddedInstructions = %v, want %v (start %+v)", got, c.want, cl.Getenv(env, name))
			}
		})
	}
	t.Run("no client runs the process", func(t *testing.T) {
		chain := hookChain("claude", "/x/claude", dir)
		chain[0].env = append(chain[0].env, name+"=1")
		fp := newFakeProc(t, chain...)
		cl := Client{Proc: fp.dir, Parent: 200}
		if s := cl.Getenv(envOf(), name); s != (StartEnv{}) {
			t.Errorf("read %+v from a process no client runs", s)
		}
	})
}

// An environ larger than the bound is not read in part. It is a problem.
func TestAnEnvironTooLargeIsAProblemNeverReadInPart(t *testing.T) {
	fp := newFakeProc(t, hookChain("claude", "/x/claude", t.TempDir())...)
	big := claude.EnvAddedInstructions + "=1\x00" + strings.Repeat("x", maxEnviron)
	if err := os.WriteFile(filepath.Join(fp.dir, "100", "environ"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Client{Proc: fp.dir, Parent: 200}.Getenv(envOf("CLAUDECODE", "1"), claude.EnvAddedInstructions)
	if s.Set || s.Problem != problemEnviron {
		t.Errorf("got %+v, want the environ problem", s)
	}
}
