//go:build darwin || freebsd || netbsd || openbsd

package walker

import (
	"io/fs"
	"sync"

	"golang.org/x/sys/unix"
)

// Reuse needs a mount id unique for the boot and a boot id. Only Linux
// gives them, so elsewhere every file is hashed.

func bootID() ([16]byte, bool) { return [16]byte{}, false }

func (h *Hashes) localCtime(int, uint64) bool { return false }

func localCtime(*sync.Map, int, uint64) bool { return false }

func buildID() ([32]byte, bool) { return [32]byte{}, false }

func identify(int, zname, *hashRec) bool { return false }

func identifyErr(int, zname, *hashRec) error { return errNotRegular }

func ownedByMe(fs.FileInfo) bool { return false }

// stat is never reached: identify names no file where there is no reuse.
func (id *hashRec) stat() unix.Stat_t { return unix.Stat_t{} }

// dirIdent is unknown where nothing is reused.
func (w *cwalk) dirIdent(int, *unix.Stat_t) Ident { return Ident{} }
