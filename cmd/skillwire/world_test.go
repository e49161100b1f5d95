package main

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/session"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

// Only list and scan observe the folders sessions added: they show what
// is on disk. Every other command, the hooks' included, does not.
func TestOnlyListAndScanObserveTheFoldersSessionsAdded(t *testing.T) {
	dir := t.TempDir()
	added := filepath.Join(dir, "x", ".claude", "skills")
	testtree.Make(t, added, "s/SKILL.md=1")
	env := map[string]string{"CLAUDE_CONFIG_DIR": dir + "/home/.claude", "CLAUDE_PROJECT_DIR": dir + "/project",
		"SKILLWIRE_STATE_DIR": dir + "/state", "SKILLWIRE_MANAGED_DIR": dir + "/managed", "HOME": dir + "/home"}
	s := &streams{in: nil, out: io.Discard, err: io.Discard, getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	// A session that added the folder was told of it: the store records it.
	_, err := session.Run(context.Background(), session.Start{
		Roots: []claude.Root{{Path: added, Scope: claude.Added, Kind: claude.Skills}}, Walk: walker.DefaultConfig(), WalkTimeout: time.Minute,
		Store: baseline.Options{Dir: env["SKILLWIRE_STATE_DIR"], Create: true, LockTimeout: time.Second},
		Audit: func() ([]reconcile.Source, string) { return nil, "" }, Log: zerolog.Nop()}, func(string, string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasParent() {
			names = append(names, commandName(c))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(s))
	for name := range observesAdded {
		if !slices.Contains(names, name) {
			t.Errorf("observesAdded names %q, which is no command", name)
		}
	}
	for _, name := range names {
		s.command = name
		w, err := loadWorld(s)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(w.roots, func(r claude.Root) bool { return r.Path == added })
		if want := name == "list" || name == "scan"; got != want {
			t.Errorf("%s observes the added folder: %v, want %v", name, got, want)
		}
	}
}
