package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillwire/skillwire/walker"
)

// The binaries a run uses, set once by TestMain: skillwire built from the
// tree, and the pinned client.
var (
	skillwireBin string
	claudeBin    string
)

// World is one isolated Claude Code home and project. It has HOME, the config
// directory (CLAUDE_CONFIG_DIR) and a project directory the client starts in.
type World struct {
	t       testing.TB
	Root    string // the temporary directory holding it all
	Home    string
	Config  string // CLAUDE_CONFIG_DIR
	Project string // the working directory of the client
	State   string // skillwire's store directory
	Env     []string
}

// NewWorld lays out an empty world. Nothing in it is shared with another
// test or with the machine's own Claude Code.
func NewWorld(t testing.TB) *World {
	t.Helper()
	root := t.TempDir()
	w := &World{t: t, Root: root,
		Home:    filepath.Join(root, "home"),
		Config:  filepath.Join(root, "home", ".claude"),
		Project: filepath.Join(root, "proj"),
	}
	w.State = filepath.Join(w.Config, "skillwire")
	for _, d := range []string{w.Home, w.Config, w.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A short folder of the world's own keeps every run's messaging socket
	// apart. The client binds it at $XDG_RUNTIME_DIR/cc-socks/<pid>.sock.
	// When that path is over 103 bytes (t.TempDir's are), it binds
	// /tmp/cc-socks-<uid>/<pid>.sock, which is shared. A socket a killed run
	// left there made a later client of the same pid log EADDRINUSE. pid_max
	// is 32768 here.
	run, err := os.MkdirTemp("/tmp", "swe2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	w.Env = []string{
		"XDG_RUNTIME_DIR=" + run,
		"HOME=" + w.Home,
		"CLAUDE_CONFIG_DIR=" + w.Config,
		"PATH=" + filepath.Dir(skillwireBin) + ":/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8",
		"TMPDIR=" + filepath.Join(root, "tmp"),
		"SKILLWIRE_MANAGED_DIR=" + filepath.Join(root, "managed"),
	}
	if err := os.MkdirAll(filepath.Join(root, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// Write creates a file and its parents under the world's root. rel is
// relative to the world root ("home/.claude/skills/x/SKILL.md").
func (w *World) Write(rel, content string) string {
	w.t.Helper()
	p := filepath.Join(w.Root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// Settle waits past walker.RacyWindow, so that files written until now are
// no longer racy. A copy read within that window of a write proves nothing,
// and the gate rightly asks. A control that expects a quiet use needs this.
func (w *World) Settle() { time.Sleep(walker.RacyWindow + time.Second) }

// Skill writes a skill's SKILL.md with a name, a description and a body.
func (w *World) Skill(dir, name, body string) string {
	return w.Write(dir+"/"+name+"/SKILL.md",
		"---\nname: "+name+"\ndescription: The "+name+" skill. Use it when asked to run "+name+".\n---\n\n"+body+"\n")
}

// AgentFile writes a custom agent's file.
func (w *World) AgentFile(dir, name, body string) string {
	return w.Write(dir+"/"+name+".md",
		"---\nname: "+name+"\ndescription: The "+name+" agent. Use it when asked to run "+name+".\n---\n\n"+body+"\n")
}

// Result is what one run of the client left behind.
type Result struct {
	Stdout, Stderr string
	Debug          string // the --debug-file text
	Out            map[string]any
	Exit           int
}

// Denials are the tool names of the -p result's permission_denials.
func (r *Result) Denials() []string {
	var out []string
	ds, _ := r.Out["permission_denials"].([]any)
	for _, d := range ds {
		if dm, _ := d.(map[string]any); dm != nil {
			name, _ := dm["tool_name"].(string)
			out = append(out, name)
		}
	}
	return out
}

// Skillwire runs the skillwire binary in the world, as its user would.
func (w *World) Skillwire(args ...string) (string, int) {
	w.t.Helper()
	cmd := exec.Command(skillwireBin, args...)
	cmd.Dir = w.Project
	cmd.Env = w.Env
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("skillwire %v: %v", args, err)
	}
	return string(out), code
}

// MustSkillwire runs skillwire and fails the test unless it exits with one of
// the codes given. None given means 0.
func (w *World) MustSkillwire(codes []int, args ...string) string {
	w.t.Helper()
	out, code := w.Skillwire(args...)
	if len(codes) == 0 {
		codes = []int{0}
	}
	for _, c := range codes {
		if c == code {
			return out
		}
	}
	w.t.Fatalf("skillwire %s: exit %d, want %v\n%s", strings.Join(args, " "), code, codes, out)
	return ""
}

// Install installs skillwire's hooks exactly as a user does.
func (w *World) Install(args ...string) {
	w.t.Helper()
	w.MustSkillwire(nil, append([]string{"hook", "install", "--yes"}, args...)...)
}

// Run is one `claude -p` in the world's project against the stand-in model.
type Run struct {
	Prompt string
	Args   []string // more client flags
	Dir    string   // working directory; the project when empty
	Env    []string // more environment
}

// Claude runs the client once and returns what it left behind.
func (w *World) Claude(m *Model, r Run) *Result {
	w.t.Helper()
	return w.claudeVia(m, r)
}

// claudeVia runs the client as Claude does, through the command prefix
// (none: the client itself).
func (w *World) claudeVia(m *Model, r Run, prefix ...string) *Result {
	w.t.Helper()
	debug := filepath.Join(w.Root, fmt.Sprintf("debug-%d.log", time.Now().UnixNano()))
	args := append([]string{"-p", r.Prompt, "--output-format", "json", "--debug-file", debug}, r.Args...)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dir := w.Project
	if r.Dir != "" {
		dir = r.Dir
	}
	env := append(append(append(append([]string{}, w.Env...), clientEnv(m)...),
		"PWD="+dir, // as a shell starts it
	), r.Env...)
	cmd, start := w.clientCmd(ctx, prefix, dir, env, args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second // a command the client left running keeps no pipe open past the kill
	err := cmd.Run()
	res := &Result{Stdout: stdout.String(), Stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		res.Exit = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("claude: %v", err)
	}
	if ctx.Err() != nil {
		w.t.Fatalf("claude did not finish in time\nstderr: %s", res.Stderr)
	}
	w.oracle(start, m)
	d, _ := os.ReadFile(debug)
	res.Debug = string(d)
	_ = json.Unmarshal(stdout.Bytes(), &res.Out)
	if res.Out == nil {
		w.t.Logf("claude printed no JSON result (exit %d)\nstdout: %s\nstderr: %s", res.Exit, res.Stdout, res.Stderr)
	}
	return res
}

// clientCmd is every start of the client, the one place the coverage
// oracle wraps: strace, then prefix, then the client with args in dir.
// The command runs in its own process group. Its cancel kills the group,
// strace and the client alike.
func (w *World) clientCmd(ctx context.Context, prefix []string, dir string, env, args []string) (*exec.Cmd, clientStart) {
	start := clientStart{trace: filepath.Join(w.Root, fmt.Sprintf("trace-%d.txt", time.Now().UnixNano())),
		dir: dir, env: env, args: args}
	if len(prefix) > 0 && prefix[0] == "unshare" {
		start.managed = filepath.Join(w.Root, "managed")
	}
	argv := slices.Concat(straceArgs(start.trace), prefix, []string{claudeBin}, args)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd, start
}

// oracle judges what the client of start read (oracle.go). A path it read
// that skillwire does not watch, and no noise entry names, fails the test.
// So does a read whose path is not known.
func (w *World) oracle(start clientStart, m *Model) {
	w.t.Helper()
	f, err := os.Open(start.trace)
	if err != nil {
		w.t.Errorf("coverage oracle: no trace of the client: %v", err)
		return
	}
	defer f.Close()
	reads := traceReads(f)
	wd, err := watchedOf(start)
	if err != nil {
		w.t.Errorf("coverage oracle: what skillwire watches for this start: %v", err)
		return
	}
	wd.scopes = append(wd.scopes, w.Root) // the folders tests lay out beside home and project
	if wd.problem != "" {
		w.t.Logf("coverage oracle: skillwire cannot observe every added folder: %s", wd.problem)
	}
	v := judge(reads, claudeBin, wd, w.anchors(start), toolPaths(m, start.dir), start.managed)
	for _, u := range v.Uncovered {
		w.t.Errorf("coverage oracle: the client read %s: skillwire watches no candidate there, and no entry of e2e/noise.go names it", u)
	}
	for _, u := range v.Unknown {
		w.t.Errorf("coverage oracle: the client read a path that cannot be known: %s", u)
	}
	for _, g := range v.Gaps {
		w.t.Logf("coverage oracle: a known gap: the client read %s", g)
	}
}

// anchors are the world's folders the noise patterns name.
func (w *World) anchors(start clientStart) map[string]string {
	a := map[string]string{"root": w.Root, "project": start.dir}
	for _, kv := range start.env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME":
			a["home"] = v
		case "CLAUDE_CONFIG_DIR":
			a["config"] = v
		case "TMPDIR":
			a["tmp"] = v
		case "SKILLWIRE_STATE_DIR":
			a["state"] = v
		}
	}
	if _, ok := a["config"]; !ok && a["home"] != "" {
		a["config"] = a["home"] + "/.claude"
	}
	if _, ok := a["state"]; !ok && a["config"] != "" {
		a["state"] = a["config"] + "/skillwire"
	}
	return a
}

// apiKey is the key the client sends the stand-in; it is no key at all.
const apiKey = "sk-ant-e2e-not-a-key"

// clientEnv points the client at the stand-in and switches off everything
// that would leave loopback.
func clientEnv(m *Model) []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + m.URL,
		"ANTHROPIC_API_KEY=" + apiKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	}
}

// Candidate is one row of `skillwire list --json`.
type Candidate struct {
	ID, Name, Kind, Digest, State string
}

// Candidate finds the listed candidate of this kind and name.
func (w *World) Candidate(kind, name string) Candidate {
	w.t.Helper()
	out := w.MustSkillwire([]int{0, 3}, "list", "--json")
	var list struct {
		Candidates []struct {
			ID, Kind, Digest, State string
			Name                    *string
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		w.t.Fatalf("list --json: %v\n%s", err, out)
	}
	for _, c := range list.Candidates {
		if c.Kind == kind && c.Name != nil && *c.Name == name {
			return Candidate{ID: c.ID, Name: name, Kind: kind, Digest: c.Digest, State: c.State}
		}
	}
	w.t.Fatalf("no %s %q in skillwire list:\n%s", kind, name, out)
	return Candidate{}
}

// Record binds a verdict to what is on disk now, as a reviewer does.
func (w *World) Record(kind, name, verdict string) Candidate {
	w.t.Helper()
	c := w.Candidate(kind, name)
	w.MustSkillwire(nil, "record", c.ID, "--verdict", verdict, "--expect-digest", c.Digest, "--reviewer", "e2e")
	return c
}

// ClaudeCmd runs a client subcommand that needs no model (`plugin install`).
func (w *World) ClaudeCmd(args ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	env := append(append([]string{}, w.Env...), "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"ANTHROPIC_BASE_URL=http://127.0.0.1:9", "ANTHROPIC_API_KEY="+apiKey)
	cmd, start := w.clientCmd(ctx, nil, w.Project, env, args)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	w.oracle(start, nil)
	return string(out)
}

// TrustProject accepts the project's trust dialog, the onboarding and the
// stand-in's API key, as a person once did. It writes them in the client's
// own state file. It must be written before the first session: a session
// rewrites it.
func (w *World) TrustProject() {
	w.t.Helper()
	key := apiKey[len(apiKey)-20:]
	project, _ := json.Marshal(w.Project)
	w.Write("home/.claude/.claude.json", `{"hasCompletedOnboarding":true,"theme":"dark",`+
		`"customApiKeyResponses":{"approved":["`+key+`"],"rejected":[]},`+
		`"projects":{`+string(project)+`:{"hasTrustDialogAccepted":true}}}`)
}

// Exists reports whether a file is there.
func Exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
