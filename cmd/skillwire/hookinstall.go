package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/review"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/internal/safefile"
	"github.com/spf13/cobra"
)

// hookEditFlags are the flags install and uninstall share.
type hookEditFlags struct {
	project bool
	managed bool
	// modsOnly: --managed-mods-only, noSideload: --managed-no-sideload,
	// only on install.
	modsOnly, noSideload bool
	events               []string
	confirmFlags
}

func (f *hookEditFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.project, "project", false, "edit the project's .claude/settings.json instead of the global one")
	cmd.Flags().BoolVar(&f.managed, "managed", false,
		"edit skillwire's drop-in in Claude Code's managed settings (<managed>/managed-settings.d/"+settings.ManagedDropIn+"; needs root): hooks there run even where a project sets disableAllHooks")
	cmd.Flags().StringSliceVar(&f.events, "events", nil,
		"the hooks to edit, by event or subcommand (session-start, pre-tool-use, prompt-expansion, config-change, instructions-loaded, post-tool-use, directory-added); default all seven")
	f.confirmFlags.register(cmd, "confirm the change", "show the change, write nothing")
}

// specs are the hooks --events names, all of them by default.
func (f *hookEditFlags) specs() ([]settings.HookSpec, error) {
	if len(f.events) == 0 {
		return settings.HookSpecs, nil
	}
	var out []settings.HookSpec
	for _, h := range settings.HookSpecs {
		for _, e := range f.events {
			if e == h.Event || e == h.Sub {
				out = append(out, h)
				break
			}
		}
	}
	for _, e := range f.events {
		known := false
		for _, h := range settings.HookSpecs {
			known = known || e == h.Event || e == h.Sub
		}
		if !known {
			return nil, fail(exitUsage, "--events takes session-start, pre-tool-use, prompt-expansion, config-change, instructions-loaded, post-tool-use and directory-added")
		}
	}
	return out, nil
}

func newHookInstallCmd(s *streams) *cobra.Command {
	var f hookEditFlags
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Add skillwire's hooks to Claude Code's settings.json",
		Long: `install adds the hooks that run this binary's 'hook session-start' (SessionStart)
and the gate's 'hook pre-tool-use' (PreToolUse, matcher Skill, Agent,
Task and Bash), 'hook prompt-expansion' (UserPromptExpansion), 'hook
config-change' (ConfigChange), 'hook instructions-loaded'
(InstructionsLoaded), 'hook post-tool-use' (PostToolUse, matcher Skill,
Agent, Task and Workflow: the person's allow of an asked use; Read, Edit and
Write: what the client read of the nested skills folders above the file)
and 'hook
directory-added' (DirectoryAdded: a folder /add-dir adds mid-session) to the
global settings.json (or, with --project, the project's
.claude/settings.json); --events chooses among them.

A mod (a plugin whose hooks file lists "modules") runs in-process code
above every hook of user and project settings: there skillwire is a
notice against it, not a gate, and install says so when one is present.
--managed writes skillwire's drop-in in Claude Code's managed settings,
whose hooks run above every mod. Even there a mod can rewrite what a deny
returns. Only the client's own allowManagedModsOnly
(pluginConfigs["cc-plugin-sec-default@builtin"].options) keeps a person's
mod from loading. --managed-mods-only adds it to the drop-in; on a
terminal without it install asks, default no; --yes never adds it.
--managed-no-sideload adds the client's disableSideloadFlags, which makes
it refuse --plugin-dir, --plugin-url, --agents and --mcp-config at
startup. A
managed prependPlugins that leaves cc-plugin-sec-default out turns the
client's security default, and that option, off: install says so. A hook already there
is left as it is. Every other setting is kept. It shows the exact
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
	cmd.Flags().BoolVar(&f.modsOnly, "managed-mods-only", false,
		"with --managed: also set the client's allowManagedModsOnly in the drop-in, so no mod but the organization's loads (--yes alone never adds it)")
	cmd.Flags().BoolVar(&f.noSideload, "managed-no-sideload", false,
		"with --managed: also set the client's disableSideloadFlags in the drop-in, so it refuses --plugin-dir, --plugin-url, --agents and --mcp-config at startup")
	return cmd
}

func newHookUninstallCmd(s *streams) *cobra.Command {
	var f hookEditFlags
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove skillwire's hooks from Claude Code's settings.json",
		Long: `uninstall removes from settings.json (or, with --project, the project's
.claude/settings.json) the hooks install added (--events chooses which) — for this
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
	specs, err := f.specs()
	if err != nil {
		return err
	}
	exe, err := selfExe()
	if err != nil {
		return err
	}
	if (f.modsOnly || f.noSideload) && !f.managed {
		return fail(exitUsage, "--managed-mods-only and --managed-no-sideload set managed settings: they go with --managed")
	}
	sf, err := openSettings(s, f)
	if err != nil {
		return err
	}
	changed := false
	for _, h := range specs {
		command, err := h.Command(exe)
		if err != nil {
			return fail(exitUsage, "%v: %s", err, defang(exe))
		}
		added, others, err := sf.Doc.InstallHook(h, command)
		if err != nil {
			return refuseSettings(sf.Path, err)
		}
		if !added {
			continue
		}
		changed = true
		fmt.Fprintf(s.out, "%s: add this %s hook\n", defang(sf.Path), h.Event)
		writeIndented(s.out, settings.HookEntry(command))
		if others > 0 {
			fmt.Fprintf(s.out, "note: %d other skillwire %s hook(s) are in this file (another binary?); 'skillwire hook uninstall' removes them all\n", others, h.Event)
		}
	}
	if f.managed {
		// The managed files both offers read; nil when not located.
		var places *claude.Places
		if p, err := claude.Locate(claudeEnv(s), ""); err == nil {
			places = &p
		}
		added, err := offerModsOnly(s, f, sf, places)
		if err != nil {
			return err
		}
		refused, err := offerNoSideload(s, f, sf, places)
		if err != nil {
			return err
		}
		changed = changed || added || refused
	} else {
		noteModsUnheld(s)
	}
	if !changed {
		fmt.Fprintf(s.out, "the hooks are already installed in %s; nothing changed\n", defang(sf.Path))
		return nil
	}
	if sf.Doc.HooksDisabled() {
		fmt.Fprintln(s.out, "note: this file sets disableAllHooks, so Claude Code runs no hook until it is removed")
	}
	return applySettings(s, f, sf)
}

// noteModsUnheld says, when a mod is present, that hooks in user or
// project settings are a notice against it, not a gate, and names
// --managed.
func noteModsUnheld(s *streams) {
	w, err := loadWorldFor(s, "")
	if err != nil {
		return
	}
	p := settings.ModPolicyOf(w.places)
	if p.Held() {
		return
	}
	mods, _ := review.ModsOf(modRoots(context.Background(), s, w, runningPlugins(s, w).Plugins))
	if n := len(mods); n > 0 {
		fmt.Fprintf(s.out, "note: %d mod(s) present (run `skillwire status`): in user or project settings skillwire's hooks are a notice against a mod, not a gate: it runs above them and can skip, allow or strip a deny and mute the advisory; to hold, run `sudo skillwire hook install --managed --managed-mods-only`\n", n)
	}
}

// offerNoSideload adds disableSideloadFlags to the managed drop-in when
// --managed-no-sideload asks for it. Otherwise, unless a managed file sets
// it already, it says what the flags load that the person's settings do
// not show: skillwire watches those from each session's command line.
func offerNoSideload(s *streams, f hookEditFlags, sf *settings.File, p *claude.Places) (bool, error) {
	const what = "disableSideloadFlags makes the client refuse --plugin-dir, --plugin-url, --agents and --mcp-config, which load plugins, agents and MCP servers no settings file lists"
	if p != nil && settings.SideloadRefusedIn(*p) != "" {
		return false, nil // set already
	}
	if !f.noSideload {
		fmt.Fprintf(s.out, "note: %s; pass --managed-no-sideload to set it in this drop-in\n", what)
		return false, nil
	}
	if err := sf.Doc.Conform(settings.SideloadPath, []byte("true")); err != nil {
		return false, refuseSettings(sf.Path, err)
	}
	fmt.Fprintf(s.out, "%s: set disableSideloadFlags: true\n", defang(sf.Path))
	return true, nil
}

// offerModsOnly adds allowManagedModsOnly to the managed drop-in when
// --managed-mods-only asks for it, or when a person answers yes on a
// terminal (default no). --yes never adds it: it keeps a person's own mods
// from loading. It says when a managed prependPlugins turns the option
// off, and when the policy is left unset.
func offerModsOnly(s *streams, f hookEditFlags, sf *settings.File, places *claude.Places) (bool, error) {
	if places == nil {
		return false, nil
	}
	p := *places
	for _, path := range settings.PrependsWithout(p) {
		fmt.Fprintf(s.out, "note: %s sets prependPlugins without %s: the client's security default is off, so allowManagedModsOnly does nothing and a mod loads\n", defang(path), settings.SecDefault)
	}
	pol := settings.ModPolicyOf(p)
	if pol.ModsOnly != "" && pol.NotModsOnly == "" {
		return false, nil
	}
	const what = "allowManagedModsOnly keeps every mod but the organization's from loading; without it a mod can still rewrite what skillwire's managed deny returns"
	add := f.modsOnly
	if !add && !f.yes && !f.dryRun {
		fmt.Fprintf(s.out, "%s: %s\n", defang(sf.Path), what)
		add = confirm(s, "also set allowManagedModsOnly in this drop-in?")
	}
	if !add {
		fmt.Fprintf(s.out, "note: %s; pass --managed-mods-only to set it in this drop-in\n", what)
		return false, nil
	}
	if err := sf.Doc.Conform(settings.ModsOnlyPath, []byte("true")); err != nil {
		return false, refuseSettings(sf.Path, err)
	}
	fmt.Fprintf(s.out, "%s: set pluginConfigs[%q].options.allowManagedModsOnly: true\n", defang(sf.Path), settings.SecDefault)
	return true, nil
}

func hookUninstall(s *streams, f hookEditFlags) error {
	specs, err := f.specs()
	if err != nil {
		return err
	}
	exe, _ := selfExe() // a binary that cannot name itself still removes hooks named skillwire
	sf, err := openSettings(s, f)
	if err != nil {
		return err
	}
	total := 0
	for _, h := range specs {
		self := ""
		if exe != "" {
			self, _ = h.Command(exe)
		}
		removed, err := sf.Doc.UninstallHooks(h, self)
		if err != nil {
			return refuseSettings(sf.Path, err)
		}
		if len(removed) == 0 {
			continue
		}
		total += len(removed)
		fmt.Fprintf(s.out, "%s: remove %d %s hook(s)\n", defang(sf.Path), len(removed), h.Event)
		for _, c := range removed {
			fmt.Fprintf(s.out, "  %s\n", anomaly.EscapeJSON([]byte(settings.QuoteJSON(c))))
		}
	}
	if f.managed {
		noteModsOnlyKept(s, sf)
	}
	if total == 0 {
		fmt.Fprintf(s.out, "no skillwire hook in %s; nothing changed\n", defang(sf.Path))
		return nil
	}
	return applySettings(s, f, sf)
}

// noteModsOnlyKept says that uninstall leaves allowManagedModsOnly: the
// client's own policy, which the organization may want without skillwire.
func noteModsOnlyKept(s *streams, sf *settings.File) {
	p := settings.ModsOnlyPath
	if keys, err := sf.Doc.Keys(p[:len(p)-1]...); err == nil && slices.Contains(keys, p[len(p)-1]) {
		fmt.Fprintf(s.out, "note: %s keeps allowManagedModsOnly, the client's own mod policy: skillwire leaves it; remove pluginConfigs[%q] by hand if the organization does not want it\n",
			defang(sf.Path), settings.SecDefault)
	}
}

// selfExe is the running binary, for the hook commands. Its path is kept
// as the system reports it: a stable symlink such as a package manager's
// bin/skillwire outlives the versioned file it points to.
func selfExe() (string, error) {
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
	if _, err := settings.HookCommand(exe); err != nil {
		return "", fail(exitUsage, "%v: %s", err, defang(exe))
	}
	return exe, nil
}

func refuseSettings(path string, err error) error {
	return fail(exitUsage, "%s: %v; nothing was changed", defang(path), err)
}

// openSettings reads the settings.json install and uninstall edit, saying
// why one is refused.
func openSettings(s *streams, f hookEditFlags) (*settings.File, error) {
	env := claude.OSEnv()
	env.Getenv = s.getenv
	var dir, path string
	var sf *settings.File
	var err error
	switch {
	case f.project && f.managed:
		return nil, fail(exitUsage, "--project and --managed name two different files: choose one")
	case f.managed:
		p, lerr := claude.Locate(env, "")
		if lerr != nil {
			return nil, fail(exitUsage, "%v", lerr)
		}
		if p.Managed == "" {
			return nil, fail(exitUsage, "no managed directory: %s is set empty", claude.ManagedDirEnv)
		}
		if os.Geteuid() != 0 {
			return nil, fail(exitUsage, "--managed writes Claude Code's managed settings in %s, which only root may change: run it as root (sudo)", defang(p.Managed))
		}
		sf, err = settings.OpenManaged(p.Managed)
		path = p.Managed + "/managed-settings.d/" + settings.ManagedDropIn
	case f.project:
		p := claude.ProjectDir(env, "")
		if p == "" {
			return nil, fail(exitUsage, "no project directory: set CLAUDE_PROJECT_DIR or run in the project")
		}
		dir = claude.ProjectConfigDir(p)
		sf, err = settings.OpenProject(p)
	default:
		if dir, err = claude.ConfigDir(env); err != nil {
			return nil, fail(exitUsage, "%v", err)
		}
		sf, err = settings.Open(dir)
	}
	if path == "" {
		path = claude.SettingsPath(dir)
	}
	switch {
	case err == nil:
		return sf, nil
	case errors.Is(err, settings.ErrLinkedProject):
		return nil, fail(exitUsage, "the project's .claude is a symbolic link; skillwire does not edit through it")
	case errors.Is(err, safefile.ErrSymlink):
		return nil, fail(exitUsage, "%s is a symbolic link; skillwire does not edit through a link: add the hook to the file it points to by hand (see --dry-run for the entry)", defang(path))
	case errors.Is(err, safefile.ErrNotRegular):
		return nil, fail(exitUsage, "%s is not a regular file; skillwire edits only a regular settings.json", defang(path))
	case errors.Is(err, settings.ErrTooLarge), errors.Is(err, settings.ErrNotJSON), errors.Is(err, settings.ErrNotObject), errors.Is(err, settings.ErrShape):
		return nil, refuseSettings(path, err)
	}
	return nil, fail(exitInternal, "reading %s: %s", defang(path), sysErr(err))
}

// applySettings shows the change, asks, and writes it with a backup of the
// old file (DESIGN.md §8).
func applySettings(s *streams, f hookEditFlags, sf *settings.File) error {
	if sf.Reformatted() {
		fmt.Fprintln(s.out, "note: the file is rewritten with two-space indentation; elsewhere only its whitespace changes")
	}
	if !sf.Exists {
		fmt.Fprintln(s.out, "the file does not exist and will be created")
	}
	before, after := sf.Change()
	writeDiff(s.out, before, after)
	if ok, err := f.proceed(s, "write this change?", "nothing was written"); !ok {
		return err
	}
	backup, err := sf.Write()
	var we *settings.WriteError
	switch {
	case errors.Is(err, settings.ErrChanged), errors.Is(err, settings.ErrMoved):
		return fail(exitInternal, "%s changed while skillwire was editing it; nothing was changed, run the command again", defang(sf.Path))
	case errors.Is(err, settings.ErrTooManyBackups):
		return failure(err, exitInternal)
	case errors.As(err, &we):
		return fail(exitInternal, "%s %s: %s", we.Op, defang(we.Path), sysErr(we.Err))
	case err != nil:
		return fail(exitInternal, "writing %s: %s", defang(sf.Path), sysErr(err))
	}
	if backup != "" {
		fmt.Fprintf(s.out, "backup of the previous file: %s\n", defang(backup))
	}
	fmt.Fprintf(s.out, "wrote %s\n", defang(sf.Path))
	return nil
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
		fmt.Fprintf(w, "  %s\n", anomaly.EscapeJSON([]byte(l)))
	}
}

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// writeDiff prints the line changes from before to after, unified style:
// each change with diffContext kept lines around it, "..." for the rest.
// A missing final newline is not a change shown (the editor writes one).
func writeDiff(w io.Writer, before, after []byte) {
	a, b := endLine(before), endLine(after)
	// Lines' edits apply to a by construction: ToUnifiedDiff cannot fail.
	u, _ := udiff.ToUnifiedDiff("", "", a, udiff.Lines(a, b), diffContext)
	fmt.Fprintln(w, "change:")
	next := 1 // the first line of before not shown yet
	for _, h := range u.Hunks {
		if h.FromLine > next {
			fmt.Fprintln(w, "   ...")
		}
		next = h.FromLine
		for _, l := range h.Lines {
			op := byte(' ')
			switch l.Kind {
			case udiff.Delete:
				op, next = '-', next+1
			case udiff.Insert:
				op = '+'
			default:
				next++
			}
			fmt.Fprintf(w, "  %c%s\n", op, anomaly.EscapeJSON([]byte(strings.TrimSuffix(l.Content, "\n"))))
		}
	}
	if next <= strings.Count(a, "\n") {
		fmt.Fprintln(w, "   ...")
	}
}

// endLine is b as text ending in a newline, unless it is empty.
func endLine(b []byte) string {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return string(b) + "\n"
	}
	return string(b)
}
