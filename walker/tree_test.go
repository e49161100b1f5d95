package walker

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
)

// observe runs Observe on dir/name with cfg (DefaultConfig when zero).
func observe(t testing.TB, dir, name string, cfg Config) Candidate {
	t.Helper()
	if cfg.MaxDepth == 0 {
		cfg = DefaultConfig()
	}
	return Observe(context.Background(), dir, []byte(name), cfg)
}

// digestOf observes a clean candidate and returns its digest, failing on
// anomalies.
func digestOf(t testing.TB, dir, name string) snapshot.Hash {
	t.Helper()
	c := observe(t, dir, name, Config{})
	if f := c.Anomalies(); len(f) > 0 {
		t.Fatalf("%s: unexpected anomalies %v", name, reasonsOf(f))
	}
	return c.Digest
}

func reasonsOf(found []snapshot.Found) []string {
	var out []string
	for _, f := range found {
		out = append(out, f.Reason.String()+"@"+string(f.Path))
	}
	return out
}

// hasAnomaly reports whether c has reason r at path.
func hasAnomaly(c *Candidate, r anomaly.Reason, path string) bool {
	for _, f := range c.Anomalies() {
		if f.Reason == r && bytes.Equal(f.Path, []byte(path)) {
			return true
		}
	}
	return false
}

func entryPaths(m *snapshot.Manifest) []string {
	var out []string
	for _, e := range m.Entries {
		out = append(out, string(e.Path))
	}
	return out
}

// runUnprivileged re-runs the named test as nobody (uid 65534) in a copy
// of this test binary. Root ignores permission bits, so a test of
// permission denial run as root would prove nothing. It skips, saying
// why, only when setpriv is missing.
func runUnprivileged(t *testing.T, name string) {
	t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("running as root without setpriv (util-linux): permission denial cannot be tested here")
	}
	exe, err := os.Executable()
	testtree.Must(t, err)
	tmp, err := os.MkdirTemp("", "skillwire-nobody-")
	testtree.Must(t, err)
	defer os.RemoveAll(tmp)
	testtree.Must(t, os.Chmod(tmp, 0o755))
	bin := filepath.Join(tmp, "walker.test")
	src, err := os.Open(exe)
	testtree.Must(t, err)
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	testtree.Must(t, err)
	_, err = io.Copy(dst, src)
	src.Close()
	testtree.Must(t, err)
	testtree.Must(t, dst.Close())
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
		bin, "-test.run=^"+name+"$", "-test.v", "-test.count=1")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR=/tmp")
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if err != nil {
		t.Fatalf("unprivileged run failed: %v", err)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+name)) {
		t.Fatal("the unprivileged run did not pass the test (skipped or not run)")
	}
}

// keepExchanging swaps each pair of paths atomically, over and over, in a
// goroutine, for the race tests. stop ends it and waits for it. It is safe
// to call twice, and runs at cleanup too.
func keepExchanging(t testing.TB, pairs ...[2]string) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
			}
			for _, p := range pairs {
				exchange(p[0], p[1])
			}
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { close(quit); <-done }) }
	t.Cleanup(stop)
	return stop
}
