// Package monitor is the daemon. It watches every root with fsnotify and
// walks again what changed. It keeps three things in the store. The
// observation cache is what the hook can trust. Change events tell a change
// made and undone between two sessions. The heartbeat says it is alive.
package monitor

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// Config configures the daemon.
type Config struct {
	// CfgDir is Claude Code's configuration directory. Its roots are
	// always watched, and so are those of every project a hook registered.
	CfgDir string
	// ClaudeJSONDir and ManagedDir are claude.Places' ClaudeJSON and
	// Managed: watched too when set.
	ClaudeJSONDir, ManagedDir string
	Store                     baseline.Options
	Walk                      walker.Config
	// Debounce gathers a burst of events on one candidate into one walk.
	Debounce time.Duration
	// Heartbeat is how often the daemon says it is alive. Each beat also
	// picks up newly registered projects and `clear`.
	Heartbeat time.Duration
	// Rescan is the safety net: a full rescan this often, whatever the
	// events said. Degraded watching rescans every DegradedRescan.
	Rescan, DegradedRescan time.Duration
	// SnapshotBytes caps the kept versions' content (content.MaxBytes);
	// 0 means content.DefaultMaxBytes.
	SnapshotBytes int64
	Log           zerolog.Logger
	// NewWatcher is fsnotify unless a test injects faults.
	NewWatcher func() (Watcher, error)
	// AuditLog is $SKILLWIRE_AUDIT_LOG (auditlog.Scopes). Change events
	// carry their file changes, reconciled with the logs it names.
	AuditLog string
	// Notify shows a desktop notification (DesktopNotifier); nil: none.
	Notify func(title, body string)
	// Ship, when set, sends the fleet events every ShipEvery, on its own
	// goroutine. They are events.ndjson beside the store. The hooks only
	// append, and never wait on the network. events.Ship keeps a cursor.
	Ship      func(ctx context.Context) error
	ShipEvery time.Duration
}

// Defaults fills the zero fields.
func (c *Config) defaults() {
	if c.Debounce <= 0 {
		c.Debounce = 100 * time.Millisecond
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = 2 * time.Second
	}
	if c.Rescan <= 0 {
		c.Rescan = 10 * time.Minute
	}
	if c.DegradedRescan <= 0 {
		c.DegradedRescan = 30 * time.Second
	}
	if c.NewWatcher == nil {
		c.NewWatcher = NewWatcher
	}
}

type candKey struct {
	root string
	name string
}

// daemon is the state of one run.
type daemon struct {
	cfg Config
	ctx context.Context
	log zerolog.Logger
	w   Watcher

	// What is observed: the roots and their last walks, by root path.
	roots []claude.Root
	obs   map[string]*walker.Root
	added addedRoots
	// addedTold: the log said why the added folders are watched only in
	// part. There are too many (baseline.MaxAddedRoots), or unreadable ones.
	addedTold bool

	// What is to do: walks due after their debounce, a full rescan.
	pending map[candKey]time.Time
	full    bool
	// bound are the candidates each file outside them is bound into, by
	// its path: a plugin's marketplace.json (claude.Root.BoundOutside).
	bound map[string][]candKey

	watches  watchSet
	degraded string // why watching is not whole, "" when it is

	hooksOff    map[string]bool // settings files told as stopping skillwire's hooks
	lastBeatLog time.Time       // when the heartbeat was last logged
}

// Run is the daemon. It returns nil when ctx ends (SIGTERM, SIGINT). It
// fails when it cannot take the role or its store is unusable.
func Run(ctx context.Context, cfg Config) error {
	cfg.defaults()
	release, err := acquire(cfg.Store.Dir)
	if err != nil {
		return err
	}
	defer release()
	w, err := cfg.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching: %w", err)
	}
	defer w.Close()
	d := &daemon{cfg: cfg, ctx: ctx, log: cfg.Log, w: w, obs: map[string]*walker.Root{},
		pending: map[candKey]time.Time{}, watches: newWatchSet(w, cfg.Log)}
	d.log.Info().Int("pid", os.Getpid()).Msg("daemon started")
	if err := d.rescan(nil); err != nil {
		return err
	}
	if cfg.Ship != nil {
		go d.ship(ctx)
	}
	return d.loop()
}
