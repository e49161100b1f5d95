package main

import (
	"fmt"

	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/content"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
)

// keeper is one command's history.Keeper in the world's state directory.
// Its walk stages into cfg. known is as history.NewKeeper's.
func (w *world) keeper(cfg *walker.Config, known func(snapshot.Hash) bool) *history.Keeper {
	k := history.NewKeeper(w.opts(false, false), known)
	k.Attach(cfg)
	return k
}

// collect says why content was not kept, if it was not. It applies
// retention after the command's store was closed, when it kept anything. A
// cap that is not a number of bytes collects nothing, and says so.
func collect(s *streams, k *history.Keeper) {
	if err := k.Err(); err != nil {
		fmt.Fprintf(s.err, "skillwire: content not kept (those versions cannot be restored): %s\n", defang(err.Error()))
	}
	if !k.Kept() {
		return
	}
	env, _ := s.getenv(content.EnvMaxBytes)
	capBytes, err := content.MaxBytes(env)
	if err != nil {
		fmt.Fprintf(s.err, "skillwire: kept versions not collected: %s\n", defang(err.Error()))
		return
	}
	if _, err := k.Collect(capBytes); err != nil {
		fmt.Fprintf(s.err, "skillwire: collecting kept versions: %s\n", defang(err.Error()))
	}
}
