// Command skillwire is a tripwire for the trees Claude Code loads and runs
// without asking: skills, agents and commands. See README.md.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
