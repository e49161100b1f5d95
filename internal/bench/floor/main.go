// Command floor is the floor of a walking session start, for
// internal/bench/reuse.sh. It starts as skillwire does: it links and
// initializes every package cmd/skillwire imports
// (TestFloorStartsAsSkillwireDoes). It opens the store read-only. It looks
// once at every entry below each TREE. That is one openat and getdents per
// directory and one fstatat per entry. Nothing is read, hashed or compared. A
// session start on an unchanged tree cannot do less.
//
//	floor -state DIR TREE...
//
// It prints the entries it looked at.
//
//	floor -inits
//
// only starts: every package is initialized, nothing runs. It is the
// floor of `skillwire --version`.
//
//	floor -state DIR -session TREE...
//
// also makes the two synced commits a start with a session makes: its
// mark before the look (served.MarkStart) and its keep after
// (served.KeepStart, of nothing). Each run is a new session of its own.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"time"

	"golang.org/x/sys/unix"

	_ "github.com/aymanbagabas/go-udiff"
	_ "github.com/rs/zerolog"
	_ "github.com/skillwire/skillwire/anomaly"
	_ "github.com/skillwire/skillwire/auditlog"
	_ "github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	_ "github.com/skillwire/skillwire/baseline/cache"
	_ "github.com/skillwire/skillwire/baseline/legacy"
	_ "github.com/skillwire/skillwire/baseline/review"
	_ "github.com/skillwire/skillwire/baseline/trust"
	_ "github.com/skillwire/skillwire/baseline/verdict"
	_ "github.com/skillwire/skillwire/claude"
	_ "github.com/skillwire/skillwire/claude/clientproc"
	_ "github.com/skillwire/skillwire/claude/config"
	_ "github.com/skillwire/skillwire/claude/hookio"
	_ "github.com/skillwire/skillwire/claude/managed"
	_ "github.com/skillwire/skillwire/claude/memkey"
	_ "github.com/skillwire/skillwire/claude/pluginrecord"
	_ "github.com/skillwire/skillwire/claude/settings"
	_ "github.com/skillwire/skillwire/claude/steer"
	_ "github.com/skillwire/skillwire/events"
	_ "github.com/skillwire/skillwire/gate"
	"github.com/skillwire/skillwire/gate/served"
	_ "github.com/skillwire/skillwire/internal/safefile"
	_ "github.com/skillwire/skillwire/lockfile"
	_ "github.com/skillwire/skillwire/monitor"
	_ "github.com/skillwire/skillwire/session"
	_ "github.com/skillwire/skillwire/session/unrecorded"
	_ "github.com/skillwire/skillwire/snapshot"
	_ "github.com/skillwire/skillwire/snapshot/content"
	_ "github.com/skillwire/skillwire/snapshot/findings"
	_ "github.com/skillwire/skillwire/snapshot/history"
	_ "github.com/skillwire/skillwire/snapshot/restore"
	_ "github.com/skillwire/skillwire/walker"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/sys/unix"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// newSession names the session of one run, a new one each time.
var newSession = func() string { return fmt.Sprintf("floor-%d-%d", os.Getpid(), time.Now().UnixNano()) }

// run is the floor of args. It returns the exit code: 2 for bad usage, 1
// when a step fails.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := fs.String("state", "", "skillwire's state directory: its store is opened read-only")
	inits := fs.Bool("inits", false, "only start: the floor of skillwire --version")
	session := fs.Bool("session", false, "also mark and keep a new session, as a start with a session does: two synced commits")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: floor -inits | floor -state DIR [-session] TREE...")
		fs.PrintDefaults()
	}
	if fs.Parse(args) != nil {
		return 2
	}
	if *inits {
		if *state != "" || *session || fs.NArg() > 0 {
			fs.Usage()
			return 2
		}
		return 0
	}
	if *state == "" || fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	fail := func(what string, err error) int {
		fmt.Fprintln(stderr, "floor:", what+":", err)
		return 1
	}
	rw := baseline.Options{Dir: *state, LockTimeout: time.Second}
	id := newSession()
	if *session {
		if err := served.MarkStart(rw, id, time.Now().UTC()); err != nil {
			return fail("marking", err)
		}
	}
	// Open during the look, as a start opens it to compare; closed before
	// the keep, as a start's compare closes it.
	st, err := baseline.Open(baseline.Options{Dir: *state, ReadOnly: true})
	if err != nil {
		return fail("the store", err)
	}
	buf := make([]byte, 32<<10)
	n := 0
	for _, tree := range fs.Args() {
		fd, err := unix.Open(tree, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == nil {
			n, err = look(fd, buf, n)
		}
		if err != nil {
			st.Close()
			return fail(tree, err)
		}
	}
	st.Close()
	if *session {
		if err := served.KeepStart(rw, id, nil, nil, time.Now().UTC()); err != nil {
			return fail("keeping", err)
		}
	}
	fmt.Fprintln(stdout, n)
	return 0
}

// look lists the open directory fd and closes it. It fstatat's each entry and
// descends into the directories, counting entries into n.
func look(fd int, buf []byte, n int) (int, error) {
	defer unix.Close(fd)
	var names []string
	for {
		k, err := unix.ReadDirent(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return n, err
		}
		if k == 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:k], -1, names)
	}
	var st unix.Stat_t
	for _, name := range names {
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return n, err
		}
		n++
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue
		}
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return n, err
		}
		if n, err = look(sub, buf, n); err != nil {
			return n, err
		}
	}
	return n, nil
}
