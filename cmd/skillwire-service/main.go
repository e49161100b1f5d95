// Command skillwire-service installs, uninstalls, starts, stops and
// reports skillwire's user service with kardianos/service. skillwire runs
// it for `skillwire service`: one monitor.ServiceRequest on stdin, one
// monitor.ServiceReply on stdout. It is its own binary because
// kardianos's init probes the init system. In skillwire, that init would
// run in every hook.
package main

import (
	"fmt"
	"os"

	"github.com/skillwire/skillwire/monitor"
	"github.com/skillwire/skillwire/monitor/kardianos"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "%s takes no arguments: skillwire runs it (skillwire service)\n", monitor.ServiceHelperName)
		os.Exit(2)
	}
	os.Exit(monitor.ServeService(os.Stdin, os.Stdout, os.Stderr, kardianos.New))
}
