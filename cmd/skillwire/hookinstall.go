package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/skillwire/skillwire/claude"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

// hookEditFlags are the flags install and uninstall share.
type hookEditFlags struct {
	project, dryRun, yes bool
}

func (f *hookEditFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.project, "project", false, "edit the project's .claude/settings.json instead of the global one")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "show the change, write nothing")
	cmd.Flags().BoolVar(&f.yes, "yes", false, "confirm the change")
}

func newHookInstallCmd(s *streams) *cobra.Command {
	var f hookEditFlags
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Add the SessionStart hook to Claude Code's settings.json",
		Long: `install adds a SessionStart hook that runs this binary's 'hook session-start'
to the global settings.json (or, with --project, the project's
.claude/settings.json). Every other setting is kept. It shows the exact
change and needs --yes, or a yes typed on a terminal; --dry-run only shows.
The previous file is kept as settings.json.skillwire-backup (or .N) before
the new one replaces it atomically. A file that is not valid JSON, not a
regular file, or of an unexpected shape is refused, never repaired.

Exit 0 done or already installed, 1 internal error, 2 usage error or
refused input.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return hookInstall(s, f) },
	}
	f.register(cmd)
	return cmd
}

func newHookUninstallCmd(s *streams) *cobra.Command {
	var f hookEditFlags
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove skillwire's SessionStart hook from Claude Code's settings.json",
		Long: `uninstall removes from settings.json (or, with --project, the project's
.claude/settings.json) the SessionStart hooks install added — for this
binary or any other one named skillwire — and a group they leave empty.
Nothing else is touched. It shows the exact change and needs --yes, or a
yes typed on a terminal; --dry-run only shows. The previous file is kept
as a backup, as with install.

Exit 0 done or nothing to remove, 1 internal error, 2 usage error or
refused input.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return hookUninstall(s, f) },
	}
	f.register(cmd)
	return cmd
}

func hookInstall(s *streams, f hookEditFlags) error {
	command, err := selfHookCommand()
	if err != nil {
		return err
	}
	sf, err := openSettings(s, f.project)
	if err != nil {
		return err
	}
	before := sf.doc.Encode()
	others := 0
	cmds, err := sf.doc.SessionStartCommands()
	if err != nil {
		return sf.refuse(err)
	}
	for _, c := range cmds {
		if c != command && claude.IsHookCommand(c) {
			others++
		}
	}
	added, err := sf.doc.AddSessionStart(command)
	if err != nil {
		return sf.refuse(err)
	}
	if !added {
		fmt.Fprintf(s.out, "the hook is already installed in %s; nothing changed\n", sf.shown())
		return nil
	}
	fmt.Fprintf(s.out, "%s: add this SessionStart hook\n", sf.shown())
	writeIndented(s.out, claude.HookEntry(command))
	if others > 0 {
		fmt.Fprintf(s.out, "note: %d other skillwire hook(s) are in this file (another binary?); 'skillwire hook uninstall' removes them all\n", others)
	}
	if sf.doc.HooksDisabled() {
		fmt.Fprintln(s.out, "note: this file sets disableAllHooks, so Claude Code runs no hook until it is removed")
	}
	return sf.apply(s, f, before)
}

func hookUninstall(s *streams, f hookEditFlags) error {
	self, _ := selfHookCommand() // a binary that cannot name itself still removes hooks named skillwire
	ours := func(c string) bool { return (self != "" && c == self) || claude.IsHookCommand(c) }
	sf, err := openSettings(s, f.project)
	if err != nil {
		return err
	}
	before := sf.doc.Encode()
	removed, err := sf.doc.RemoveSessionStart(ours)
	if err != nil {
		return sf.refuse(err)
	}
	if len(removed) == 0 {
		fmt.Fprintf(s.out, "no skillwire hook in %s; nothing changed\n", sf.shown())
		return nil
	}
	fmt.Fprintf(s.out, "%s: remove %d SessionStart hook(s)\n", sf.shown(), len(removed))
	for _, c := range removed {
		fmt.Fprintf(s.out, "  %s\n", displayLine(quoteJSON(c)))
	}
	return sf.apply(s, f, before)
}

// selfHookCommand is the hook command for the running binary. Its path is
// kept as the system reports it: a stable symlink such as a package
// manager's bin/skillwire outlives the versioned file it points to.
func selfHookCommand() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fail(exitInternal, "cannot tell where this binary is: %s", defang(err.Error()))
	}
	for _, c := range strings.Split(exe, "/") {
		if strings.HasPrefix(c, "go-build") {
			return "", fail(exitUsage, "this binary is a temporary build (go run) that will vanish; install skillwire and run its 'hook install'")
		}
	}
	if fi, err := os.Stat(exe); err != nil || !fi.Mode().IsRegular() {
		return "", fail(exitInternal, "cannot find this binary at %s", defang(exe))
	}
	command, err := claude.HookCommand(exe)
	if err != nil {
		return "", fail(exitUsage, "%v: %s", err, defang(exe))
	}
	return command, nil
}

// settingsFile is a settings.json as read, and its parsed document.
type settingsFile struct {
	dir, path string
	exists    bool
	mode      os.FileMode
	orig      []byte
	doc       *claude.Settings
}

func (sf *settingsFile) shown() string { return defang(sf.path) }

func (sf *settingsFile) refuse(err error) error {
	return fail(exitUsage, "%s: %v; nothing was changed", sf.shown(), err)
}

func openSettings(s *streams, project bool) (*settingsFile, error) {
	env := claude.OSEnv()
	env.Getenv = s.getenv
	var dir string
	if project {
		p := claude.ProjectDir(env, "")
		if p == "" {
			return nil, fail(exitUsage, "no project directory: set CLAUDE_PROJECT_DIR or run in the project")
		}
		dir = claude.ProjectConfigDir(p)
		// A repository's .claude is its author's choice: a link there could
		// send the edit into another settings file (found in review).
		if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fail(exitUsage, "the project's .claude is a symbolic link; skillwire does not edit through it")
		}
	} else {
		cfg, err := claude.ConfigDir(env)
		if err != nil {
			return nil, fail(exitUsage, "%v", err)
		}
		dir = cfg
	}
	sf := &settingsFile{dir: dir, path: claude.SettingsPath(dir), mode: 0o600}
	b, fi, err := readRegular(sf.path, claude.MaxSettings)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		sf.doc = claude.NewSettings()
		return sf, nil
	case errors.Is(err, errSymlink):
		return nil, fail(exitUsage, "%s is a symbolic link; skillwire does not edit through a link: add the hook to the file it points to by hand (see --dry-run for the entry)", sf.shown())
	case errors.Is(err, errNotRegular):
		return nil, fail(exitUsage, "%s is not a regular file; skillwire edits only a regular settings.json", sf.shown())
	case errors.Is(err, errTooLarge):
		return nil, sf.refuse(claude.ErrTooLarge)
	case err != nil:
		return nil, fail(exitInternal, "reading %s: %s", sf.shown(), sysErr(err))
	}
	sf.exists, sf.mode, sf.orig = true, fi.Mode().Perm(), b
	if sf.doc, err = claude.ParseSettings(b); err != nil {
		return nil, sf.refuse(err)
	}
	return sf, nil
}

var (
	errSymlink    = errors.New("a symbolic link")
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("too large")
)

// readRegular reads a regular file of at most max bytes without following
// a symlink or opening anything else, and proves the file read is the one
// examined. Every file skillwire reads from a user-given path outside the
// watched trees (settings.json, a legacy baseline) goes through it.
func readRegular(path string, max int) ([]byte, os.FileInfo, error) {
	lfi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case lfi.Mode()&fs.ModeSymlink != 0:
		return nil, nil, errSymlink
	case !lfi.Mode().IsRegular():
		return nil, nil, errNotRegular
	}
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, lfi) {
		return nil, nil, errNotRegular
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, nil, err
	}
	if len(b) > max {
		return nil, nil, errTooLarge
	}
	return b, fi, nil
}

// apply shows the change, asks, backs the old file up and writes the new
// one (DESIGN.md §8).
func (sf *settingsFile) apply(s *streams, f hookEditFlags, before []byte) error {
	after := sf.doc.Encode()
	if sf.exists && !bytes.Equal(sf.orig, before) {
		fmt.Fprintln(s.out, "note: the file is rewritten with two-space indentation; elsewhere only its whitespace changes")
	}
	if !sf.exists {
		before = nil
		fmt.Fprintln(s.out, "the file does not exist and will be created")
	}
	writeDiff(s.out, before, after)
	if f.dryRun {
		fmt.Fprintln(s.out, "dry run: nothing was written")
		return nil
	}
	if !f.yes && !confirm(s, "write this change?") {
		return fail(exitUsage, "nothing was written: pass --yes to confirm")
	}
	backup, err := sf.write(after)
	if err != nil {
		return err
	}
	if backup != "" {
		fmt.Fprintf(s.out, "backup of the previous file: %s\n", defang(backup))
	}
	fmt.Fprintf(s.out, "wrote %s\n", sf.shown())
	return nil
}

// maxBackups bounds the search for a free backup name.
const maxBackups = 1000

// write backs the original up under a name no file has, then replaces the
// settings atomically: a temporary file in the same directory, synced, with
// the original's mode, renamed over it, and the directory synced. It refuses
// when the file changed since it was read (Claude Code writes it too).
func (sf *settingsFile) write(data []byte) (string, error) {
	if !sf.exists {
		if err := os.Mkdir(sf.dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fail(exitInternal, "creating %s: %s", defang(sf.dir), sysErr(err))
		}
	}
	backup := ""
	if sf.exists {
		var err error
		if backup, err = writeBackup(sf.path, sf.orig, sf.mode); err != nil {
			return "", err
		}
	}
	tmp, err := os.CreateTemp(sf.dir, ".settings.json.skillwire-*")
	if err != nil {
		return backup, fail(exitInternal, "writing in %s: %s", defang(sf.dir), sysErr(err))
	}
	done := false
	defer func() {
		if !done {
			os.Remove(tmp.Name())
		}
	}()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(sf.mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return backup, fail(exitInternal, "writing in %s: %s", defang(sf.dir), sysErr(err))
	}
	if err := sf.replace(tmp.Name()); err != nil {
		return backup, err
	}
	done = true
	if d, err := os.Open(sf.dir); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return backup, fail(exitInternal, "syncing %s: %s", defang(sf.dir), sysErr(err))
		}
	}
	return backup, nil
}

// replace puts tmp in place of the file, provided it is still what was
// read: unchanged, or still absent.
func (sf *settingsFile) replace(tmp string) error {
	changed := fail(exitInternal, "%s changed while skillwire was editing it; nothing was changed, run the command again", sf.shown())
	if !sf.exists {
		// A link cannot replace a file created meanwhile; rename could.
		err := os.Link(tmp, sf.path)
		if errors.Is(err, fs.ErrExist) {
			return changed
		}
		if err == nil {
			os.Remove(tmp)
			return nil
		}
		if _, err := os.Lstat(sf.path); !errors.Is(err, fs.ErrNotExist) {
			return changed
		}
	} else if now, _, err := readRegular(sf.path, claude.MaxSettings); err != nil || !bytes.Equal(now, sf.orig) {
		return changed
	}
	if err := os.Rename(tmp, sf.path); err != nil {
		return fail(exitInternal, "replacing %s: %s", sf.shown(), sysErr(err))
	}
	return nil
}

// writeBackup writes the original bytes to settings.json.skillwire-backup,
// or the first free .N after it: an existing backup is never overwritten.
func writeBackup(path string, orig []byte, mode os.FileMode) (string, error) {
	base := path + ".skillwire-backup"
	for i := 0; i < maxBackups; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s.%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fail(exitInternal, "writing the backup %s: %s", defang(name), sysErr(err))
		}
		_, err = f.Write(orig)
		if err == nil {
			err = f.Chmod(mode)
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fail(exitInternal, "writing the backup %s: %s", defang(name), sysErr(err))
		}
		return name, nil
	}
	return "", fail(exitInternal, "%d backups of %s exist already; remove old ones", maxBackups, defang(path))
}

// sysErr is the system's reason alone, without the path it carries.
func sysErr(err error) string {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return defang(err.Error())
}

func writeIndented(w io.Writer, b []byte) {
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		fmt.Fprintf(w, "  %s\n", displayLine(l))
	}
}

func quoteJSON(s string) string {
	var b bytes.Buffer
	b.WriteString(`"`)
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(`"`)
	return b.String()
}

// displayLine makes a line of JSON safe for a terminal and faithful: every
// byte outside printable ASCII, which can only be inside a string, is shown
// as its \u escape (invalid UTF-8 as \ufffd), so neither control sequences
// nor bidirectional overrides from the file reach the screen.
func displayLine(l string) string {
	var b strings.Builder
	for _, r := range l {
		switch {
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			if r == utf8.RuneError {
				r = 0xfffd
			}
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// writeDiff prints the line changes from before to after, unified style.
func writeDiff(w io.Writer, before, after []byte) {
	lines := lineDiff(splitLines(before), splitLines(after))
	show := make([]bool, len(lines))
	for i, l := range lines {
		if l.op == ' ' {
			continue
		}
		for j := max(0, i-diffContext); j <= min(len(lines)-1, i+diffContext); j++ {
			show[j] = true
		}
	}
	fmt.Fprintln(w, "change:")
	gap := false
	for i, l := range lines {
		if !show[i] {
			gap = true
			continue
		}
		if gap {
			fmt.Fprintln(w, "   ...")
			gap = false
		}
		fmt.Fprintf(w, "  %c%s\n", l.op, displayLine(l.text))
	}
	if gap {
		fmt.Fprintln(w, "   ...")
	}
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

type diffLine struct {
	op   byte // ' ', '-' or '+'
	text string
}

// maxDiffCells bounds the longest-common-subsequence table; past it the
// changed middle is shown as removed, then added.
const maxDiffCells = 1 << 22

// lineDiff is a minimal line diff: the common prefix and suffix, and a
// longest common subsequence of what lies between.
func lineDiff(a, b []string) []diffLine {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	q := 0
	for q < len(a)-p && q < len(b)-p && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	var out []diffLine
	for _, l := range a[:p] {
		out = append(out, diffLine{' ', l})
	}
	ma, mb := a[p:len(a)-q], b[p:len(b)-q]
	if (len(ma)+1)*(len(mb)+1) > maxDiffCells {
		for _, l := range ma {
			out = append(out, diffLine{'-', l})
		}
		for _, l := range mb {
			out = append(out, diffLine{'+', l})
		}
	} else {
		out = append(out, lcsDiff(ma, mb)...)
	}
	for _, l := range a[len(a)-q:] {
		out = append(out, diffLine{' ', l})
	}
	return out
}

func lcsDiff(a, b []string) []diffLine {
	n, m := len(a), len(b)
	// lcs[i*(m+1)+j] is the LCS length of a[i:] and b[j:].
	lcs := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*(m+1)+j] = lcs[(i+1)*(m+1)+j+1] + 1
			} else {
				lcs[i*(m+1)+j] = max(lcs[(i+1)*(m+1)+j], lcs[i*(m+1)+j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{' ', a[i]})
			i, j = i+1, j+1
		case lcs[(i+1)*(m+1)+j] >= lcs[i*(m+1)+j+1]:
			out = append(out, diffLine{'-', a[i]})
			i++
		default:
			out = append(out, diffLine{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, diffLine{'-', a[i]})
	}
	for ; j < m; j++ {
		out = append(out, diffLine{'+', b[j]})
	}
	return out
}
