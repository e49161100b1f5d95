package main

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

// TestFloorStartsAsSkillwireDoes: the floor links and initializes every
// package skillwire's command does. So its start costs what skillwire's does,
// and only the work differs.
func TestFloorStartsAsSkillwireDoes(t *testing.T) {
	cmd, err := build.ImportDir("../../../cmd/skillwire", 0)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cmd.Imports {
		if strings.Contains(p, ".") && !slices.Contains(floor.Imports, p) {
			t.Errorf("skillwire imports %s and the floor does not: add it to internal/bench/floor's imports", p)
		}
	}
}
