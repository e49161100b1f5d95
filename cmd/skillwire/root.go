package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/clientproc"
	"github.com/spf13/cobra"
)

// Exit codes, the same for every command (DESIGN.md §7).
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2 // usage error or refused input
	exitFinding  = 3 // an anomaly, adverse verdict, change or failed verification
	exitNoAudit  = 4 // the audit could not be performed
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// exitError carries an exit code and an optional one-line message for
// stderr. A finding has no message: the output already says it.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

var errFinding = &exitError{code: exitFinding}

// streams are the command's standard streams, so tests run it in process.
type streams struct {
	in       io.Reader
	out, err io.Writer
	getenv   func(string) (string, bool)
	// client is where a hook looks for the Claude Code process running
	// it, for the folders it added. The zero value finds none.
	client clientproc.Client
	// command is the command running, as observesAdded names it.
	command string
}

func run(args []string, in io.Reader, out, errw io.Writer) int {
	return runWith(args, streams{in: in, out: out, err: errw, getenv: lookupEnv, client: clientproc.ThisClient()})
}

func runWith(args []string, s streams) int {
	root := newRootFor(&s, args)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(s.err, "skillwire: %s\n", ee.msg)
		}
		return ee.code
	}
	// Everything else comes from argument parsing: a usage error. Cobra
	// quotes the offending argument; it is defanged before it is shown.
	fmt.Fprintf(s.err, "skillwire: %s\nRun 'skillwire --help' for usage.\n", defang(err.Error()))
	return exitUsage
}

// defang is anomaly.Defang, the message style of the one escaper.
func defang(msg string) string { return anomaly.Defang(msg) }

func newRoot(s *streams) *cobra.Command {
	root := newBareRoot(s)
	for _, c := range commands {
		root.AddCommand(c.new(s))
	}
	return root
}

// newBareRoot is the root command with no command under it.
func newBareRoot(s *streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "skillwire",
		Short: "A tripwire for the skills, agents and commands Claude Code runs",
		Long: `skillwire observes the trees Claude Code loads without asking (skills,
agents, commands), binds a reviewer's verdict to the exact bytes reviewed,
and reports what appeared, changed, disappeared or could not be observed.
It keeps the bytes it observed, so a change can be shown and undone.

When a session is told a candidate changed:
  skillwire diff ID        what changed, file by file
  skillwire record ID ...  accept it (--verdict SAFE-TO-PROPOSE --expect-digest D)
  skillwire restore ID     or put the reviewed version back

Exit codes: 0 ok, 1 internal error, 2 usage error or refused input,
3 a finding, 4 the audit could not be performed.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetIn(s.in)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return err })
	root.PersistentPreRun = func(c *cobra.Command, _ []string) { s.command = commandName(c) }
	// cobra's own help command prints an unknown topic raw on stdout and
	// exits 0. This one refuses it like an unknown command.
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, _, err := c.Root().Find(args)
			if cmd == nil || err != nil {
				return fail(exitUsage, "unknown help topic %s", defang(strings.Join(args, " ")))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	})
	return root
}

// commands are skillwire's commands by name, in the order help lists them.
var commands = []struct {
	name string
	new  func(*streams) *cobra.Command
}{
	{"digest", newDigestCmd}, {"scan", newScanCmd}, {"lock", newLockCmd}, {"verify", newVerifyCmd},
	{"list", newListCmd}, {"record", newRecordCmd}, {"status", newStatusCmd}, {"forget", newForgetCmd}, {"import", newImportCmd},
	{"history", newHistoryCmd}, {"diff", newDiffCmd}, {"restore", newRestoreCmd}, {"review", newReviewCmd},
	{"hook", newHookCmd}, {"daemon", newDaemonCmd}, {"clear", newClearCmd},
	{"service", newServiceCmd}, {"gate", newGateCmd},
	{"audit", newAuditCmd}, {"check", newCheckCmd}, {"trust", newTrustCmd},
	{"events", newEventsCmd},
}

// newRootFor is newRoot with only the command args name built: every hook
// starts here, and building the twenty others cost each hook more than
// parsing its arguments (issue 34). A bare --version builds none. Any
// other run (help, a flag first, a typo wanting its suggestion) builds
// them all, so what it prints is newRoot's.
func newRootFor(s *streams, args []string) *cobra.Command {
	if len(args) == 0 {
		return newRoot(s)
	}
	if len(args) == 1 && args[0] == "--version" {
		return newBareRoot(s)
	}
	for _, c := range commands {
		if c.name == args[0] {
			root := newBareRoot(s)
			root.AddCommand(c.new(s))
			return root
		}
	}
	return newRoot(s)
}

// writeJSON prints exactly one JSON object and a newline. The output is
// not HTML: "<root>" prints as written (DESIGN.md §7), not as \u003c. It is
// pure ASCII: every other rune is a \u escape. So no bidi override or line
// separator from a log line or a name reaches a terminal or a model raw.
// The decoded value is the same.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fail(exitInternal, "writing output: %v", err)
	}
	if _, err := w.Write(asciiJSON(buf.Bytes())); err != nil {
		return fail(exitInternal, "writing output: %v", err)
	}
	return nil
}

// asciiJSON escapes every non-ASCII rune and DEL of valid JSON as \uXXXX
// (a surrogate pair above U+FFFF). Outside strings JSON is ASCII already.
func asciiJSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf && b[0] != 0x7f { // DEL only occurs inside a string
			out = append(out, b[0])
			b = b[1:]
			continue
		}
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, "\\u%04x\\u%04x", r1, r2)
			continue
		}
		out = fmt.Appendf(out, "\\u%04x", r)
	}
	return out
}
