package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/skillwire/skillwire/monitor"
	"github.com/skillwire/skillwire/monitor/kardianos"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// TestMain lets the test binary run as the skillwire command inside the
// scripts. Each `exec skillwire` is a real process with real exit codes.
// It also runs as skillwire-service, the real one (kardianos), which
// skillwire looks for beside its own binary: a link to it is put there.
func TestMain(m *testing.M) {
	testscript.Main(withServiceHelper(m), map[string]func(){
		"skillwire": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		monitor.ServiceHelperName: func() {
			os.Exit(monitor.ServeService(os.Stdin, os.Stdout, os.Stderr, kardianos.New))
		},
	})
}

// serviceHelperTests links the test binary as skillwire-service beside
// it for the tests' run, and removes the link after.
type serviceHelperTests struct {
	m    *testing.M
	link string
}

func withServiceHelper(m *testing.M) serviceHelperTests {
	// A script's process runs as a command; only the tests' own makes it.
	if n := filepath.Base(os.Args[0]); n == "skillwire" || n == monitor.ServiceHelperName {
		return serviceHelperTests{m: m}
	}
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	link := filepath.Join(filepath.Dir(exe), monitor.ServiceHelperName)
	os.Remove(link) // left by a run that was killed
	if err := os.Link(exe, link); err != nil {
		panic(err)
	}
	return serviceHelperTests{m: m, link: link}
}

func (t serviceHelperTests) Run() int {
	code := t.m.Run()
	if t.link != "" {
		os.Remove(t.link)
	}
	return code
}

// TestScript runs the CLI scripts in testdata/script. Each script names the
// invariant it guards in its opening comment.
func TestScript(t *testing.T) {
	// The work directories live under a root that other users may traverse,
	// not read. So a script can run skillwire as nobody on its $WORK tree.
	root, err := os.MkdirTemp("", "skillwire-script")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o711); err != nil {
		t.Fatal(err)
	}
	nb := &nobodyBin{dir: filepath.Join(root, "bin")}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		WorkdirRoot:         root,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			// Never the real machine's Claude Code directories or store.
			e.Setenv("HOME", e.WorkDir+"/home")
			e.Setenv("CLAUDE_CONFIG_DIR", e.WorkDir+"/home/.claude")
			e.Setenv("CLAUDE_PROJECT_DIR", e.WorkDir+"/project")
			e.Setenv("SKILLWIRE_STATE_DIR", e.WorkDir+"/state")
			e.Setenv("SKILLWIRE_MANAGED_DIR", e.WorkDir+"/managed")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return unix.Geteuid() == 0, nil
			}
			if cond != "nobody" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			// [nobody]: privileges can be dropped, or there are none to drop.
			if unix.Geteuid() != 0 {
				return true, nil
			}
			_, err := exec.LookPath("setpriv")
			return err == nil, nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exits":       nb.cmdExits,
			"mkfifo":      cmdMkfifo,
			"envhex":      cmdEnvhex,
			"scriptentry": cmdScriptentry,
			"hasbytes":    cmdHasbytes,
			"nodeep":      cmdNodeep,
			"nfiles":      cmdNfiles,
			"json":        cmdJSON,
			"lockstore":   cmdLockstore,
		},
	})
}

// nobodyBin is a copy of the test binary, named skillwire, that uid 65534
// may execute. Tests run as root in CI, and root ignores chmod 000.
type nobodyBin struct {
	dir  string
	once sync.Once
	path string
	err  error
}

func (nb *nobodyBin) get() (string, error) {
	nb.once.Do(func() {
		self, err := os.Executable()
		if err != nil {
			nb.err = err
			return
		}
		if err := os.MkdirAll(nb.dir, 0o755); err != nil {
			nb.err = err
			return
		}
		nb.path = filepath.Join(nb.dir, "skillwire")
		nb.err = copyFile(self, nb.path, 0o755)
	})
	return nb.path, nb.err
}

func copyFile(from, to string, mode os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// exits CODE [nobody] PROG [ARGS...]
//
// runs PROG like exec and requires its exit status to be exactly CODE
// (exec and ! exec cannot tell 2, refused, from 3, a finding). With
// nobody, PROG must be skillwire and runs as uid/gid 65534 through
// setpriv when the test runs as root; guard such lines with [nobody].
func (nb *nobodyBin) cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exits")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE [nobody] PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	prog, rest := args[1], args[2:]
	if prog == "nobody" {
		if len(rest) == 0 || rest[0] != "skillwire" {
			ts.Fatalf("usage: exits CODE nobody skillwire [ARGS...]")
		}
		bin, err := nb.get()
		ts.Check(err)
		prog, rest = bin, rest[1:]
		if unix.Geteuid() == 0 {
			prog, rest = "setpriv", append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", bin}, rest...)
		}
	}
	err = ts.Exec(prog, rest...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// mkfifo PATH...
//
// makes named pipes: a FIFO cannot live in a txtar archive.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: mkfifo PATH...")
	}
	for _, p := range args {
		ts.Check(unix.Mkfifo(ts.MkAbs(p), 0o644))
	}
}

// scriptentry VAR PATH
//
// sets VAR to the manifest name skillwire binds the script at PATH under
// (walker.ScriptEntry): what a forged audit entry would spell.
func cmdScriptentry(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: scriptentry VAR PATH")
	}
	ts.Setenv(args[0], string(walker.ScriptEntry(args[1])))
}

// envhex VAR HEX
//
// sets VAR to the raw bytes HEX spells. A newline, an ESC, an invalid
// UTF-8 byte cannot be written in a script line. But $VAR can be used in
// mkdir, cp, exec arguments and hasbytes.
func cmdEnvhex(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envhex VAR HEX")
	}
	b, err := hex.DecodeString(args[1])
	ts.Check(err)
	if bytes.IndexByte(b, 0) >= 0 {
		ts.Fatalf("envhex: a NUL byte cannot be in an environment variable")
	}
	ts.Setenv(args[0], string(b))
}

// hasbytes stdout|stderr|FILE STRING...
//
// succeeds when every STRING occurs byte for byte; with !, fails when any
// does. Unlike stdout's regexps it matches invalid UTF-8 exactly.
func cmdHasbytes(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: hasbytes stdout|stderr|FILE STRING...")
	}
	text := ts.ReadFile(args[0])
	for _, s := range args[1:] {
		if s == "" {
			ts.Fatalf("hasbytes: empty string")
		}
		found := strings.Contains(text, s)
		if found && neg {
			ts.Fatalf("%s holds the raw bytes %x", args[0], s)
		}
		if !found && !neg {
			ts.Fatalf("%s lacks the bytes %x", args[0], s)
		}
	}
}

// nodeep DIR N
//
// makes DIR and N nested directories named d below it.
func cmdNodeep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: nodeep DIR N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	p := ts.MkAbs(args[0]) + strings.Repeat("/d", n)
	ts.Check(os.MkdirAll(p, 0o755))
}

// nfiles DIR N
//
// makes DIR and N empty files f00000... in it: fanout and budget
// fixtures too large to spell out in an archive.
func cmdNfiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: nfiles DIR N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	for i := range n {
		ts.Check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644))
	}
}

// json PATH = VALUE | PATH ~ REGEXP | PATH keys KEY... | PATH len N | PATH setenv VAR
//
// checks the last command's stdout. It must be exactly one JSON object and
// nothing else (DESIGN.md §7). PATH is dot-separated; . is the whole
// object. A * component means every element of an array, and there must be
// at least one. = compares with a JSON value. ~ matches a string. keys
// requires exactly these object keys. len checks an array's length. setenv
// saves a string for a later comparison with text output.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: json PATH (= VALUE | ~ REGEXP | keys KEY... | len N | setenv VAR)")
	}
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile("stdout")))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		ts.Fatalf("stdout is not JSON: %v", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		ts.Fatalf("stdout is JSON but not an object")
	}
	if _, err := dec.Token(); err != io.EOF {
		ts.Fatalf("stdout holds more than one JSON value")
	}
	path, op, operands := args[0], args[1], args[2:]
	vals := jsonSelect(ts, doc, path)
	for i, v := range vals {
		where := path
		if len(vals) > 1 {
			where = fmt.Sprintf("%s (match %d)", path, i)
		}
		switch op {
		case "=":
			if len(operands) != 1 {
				ts.Fatalf("usage: json PATH = VALUE")
			}
			d := json.NewDecoder(strings.NewReader(operands[0]))
			d.UseNumber()
			var want any
			ts.Check(d.Decode(&want))
			if !reflect.DeepEqual(v, want) {
				ts.Fatalf("%s is %s, want %s", where, showJSON(v), operands[0])
			}
		case "~":
			if len(operands) != 1 {
				ts.Fatalf("usage: json PATH ~ REGEXP")
			}
			s, ok := v.(string)
			if !ok || !regexp.MustCompile(operands[0]).MatchString(s) {
				ts.Fatalf("%s is %s, want a string matching %s", where, showJSON(v), operands[0])
			}
		case "keys":
			obj, ok := v.(map[string]any)
			if !ok {
				ts.Fatalf("%s is not an object", where)
			}
			var got []string
			for k := range obj {
				got = append(got, k)
			}
			want := slices.Clone(operands)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				ts.Fatalf("%s has keys %q, want %q", where, got, want)
			}
		case "len":
			arr, ok := v.([]any)
			n, err := strconv.Atoi(strings.Join(operands, ""))
			ts.Check(err)
			if !ok || len(arr) != n {
				ts.Fatalf("%s is not an array of length %d", where, n)
			}
		case "setenv":
			s, ok := v.(string)
			if !ok || len(operands) != 1 || len(vals) != 1 {
				ts.Fatalf("usage: json PATH setenv VAR, PATH naming one string")
			}
			ts.Setenv(operands[0], s)
		default:
			ts.Fatalf("json: unknown operator %q", op)
		}
	}
}

func showJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func jsonSelect(ts *testscript.TestScript, doc any, path string) []any {
	vals := []any{doc}
	if path == "." {
		return vals
	}
	for _, comp := range strings.Split(path, ".") {
		var next []any
		for _, v := range vals {
			switch v := v.(type) {
			case map[string]any:
				c, ok := v[comp]
				if !ok {
					ts.Fatalf("json: %s: no key %q", path, comp)
				}
				next = append(next, c)
			case []any:
				if comp == "*" {
					if len(v) == 0 {
						ts.Fatalf("json: %s: * over an empty array", path)
					}
					next = append(next, v...)
					continue
				}
				i, err := strconv.Atoi(comp)
				if err != nil || i < 0 || i >= len(v) {
					ts.Fatalf("json: %s: no element %q", path, comp)
				}
				next = append(next, v[i])
			default:
				ts.Fatalf("json: %s: %q is below a scalar", path, comp)
			}
		}
		vals = next
	}
	return vals
}

// lockstore FILE: hold an exclusive flock on FILE (a store) until the
// script ends, as a concurrent skillwire process would.
func cmdLockstore(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lockstore FILE")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB))
	ts.Defer(func() { f.Close() })
}
