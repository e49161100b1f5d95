package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// confirmFlags are --yes and --dry-run, which every command that changes
// what a person owns takes (DESIGN.md §8).
type confirmFlags struct {
	yes, dryRun bool
}

func (f *confirmFlags) register(cmd *cobra.Command, yesHelp, dryRunHelp string) {
	cmd.Flags().BoolVar(&f.yes, "yes", false, yesHelp)
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, dryRunHelp)
}

// proceed is called once the change has been shown. It is false on a dry
// run, said on out. It is an exit-2 error unless --yes or a yes typed on a
// terminal confirms it. nothing names what was not done.
func (f confirmFlags) proceed(s *streams, question, nothing string) (bool, error) {
	if f.dryRun {
		fmt.Fprintf(s.out, "dry run: %s\n", nothing)
		return false, nil
	}
	if !f.yes && !confirm(s, question) {
		return false, fail(exitUsage, "%s: pass --yes to confirm", nothing)
	}
	return true, nil
}

// confirm asks question on a terminal. Anything but an explicit yes is a
// no. Without a terminal there is no one to ask.
func confirm(s *streams, question string) bool {
	in, ok := s.in.(*os.File)
	if !ok || !isTerminal(in) {
		return false
	}
	fmt.Fprintf(s.err, "%s [y/N] ", question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	a := strings.TrimSpace(strings.ToLower(line))
	return a == "y" || a == "yes"
}
