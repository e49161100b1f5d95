package arch

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTheHookBinaryLinksNoGRPC: every hook starts cmd/skillwire, so it
// pays for each package's init. The OTLP exporter links gRPC and
// protobuf. The OpenTelemetry SDK links net/http and TLS, 0.8 ms of every
// start here. They live in cmd/skillwire-ship alone (issue 34). The user
// service's kardianos/service probes the init system at init: it lives
// in cmd/skillwire-service alone.
func TestTheHookBinaryLinksNoGRPC(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/skillwire").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	banned := []string{"google.golang.org/grpc", "google.golang.org/protobuf/", module + "/events/otlp", "go.opentelemetry.io/",
		module + "/internal/otlprec", "net/http", "crypto/tls",
		"github.com/kardianos/service", module + "/monitor/kardianos"}
	for _, d := range deps {
		for _, b := range banned {
			if strings.HasPrefix(d, b) {
				t.Errorf("cmd/skillwire links %s", d)
			}
		}
	}
	if len(deps) < 10 {
		t.Fatalf("go list named %d packages: %q", len(deps), deps)
	}
}
