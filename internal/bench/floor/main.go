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
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

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

func main() {
	state := flag.String("state", "", "skillwire's state directory: its store is opened read-only")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: floor -state DIR TREE...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *state == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	st, err := baseline.Open(baseline.Options{Dir: *state, ReadOnly: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	defer st.Close()
	buf := make([]byte, 32<<10)
	n := 0
	for _, tree := range flag.Args() {
		fd, err := unix.Open(tree, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		if n, err = look(fd, buf, n); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", tree, err)
			os.Exit(1)
		}
	}
	fmt.Println(n)
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
