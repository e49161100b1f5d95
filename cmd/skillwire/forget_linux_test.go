package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"golang.org/x/sys/unix"
)

// openPTY is a pseudo-terminal: confirm asks only on a terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// promptWriter collects stderr and closes asked once the prompt is out.
type promptWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	asked chan struct{}
	once  sync.Once
}

func (w *promptWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "[y/N] ") {
		w.once.Do(func() { close(w.asked) })
	}
	return len(p), nil
}

func (w *promptWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

type forgetFixture struct {
	env   map[string]string
	state string
	id    string
}

func (f *forgetFixture) streams(in *os.File, out, errw *bytes.Buffer) streams {
	s := streams{in: in, out: out, err: errw, getenv: func(k string) (string, bool) { v, ok := f.env[k]; return v, ok }}
	if in == nil {
		s.in = bytes.NewReader(nil)
	}
	return s
}

func (f *forgetFixture) run(t *testing.T, args ...string) int {
	t.Helper()
	var out, errw bytes.Buffer
	return runWith(args, f.streams(nil, &out, &errw))
}

// newForgetFixture is a store holding the record of one skill.
func newForgetFixture(t *testing.T) *forgetFixture {
	dir := t.TempDir()
	f := &forgetFixture{state: dir + "/state", env: map[string]string{
		"HOME": dir, "CLAUDE_CONFIG_DIR": dir + "/cfg", "SKILLWIRE_STATE_DIR": dir + "/state",
		"CLAUDE_PROJECT_DIR": dir + "/project", "SKILLWIRE_LOCK_TIMEOUT": "200ms",
	}}
	if err := os.MkdirAll(dir+"/cfg/skills/a", 0o700); err != nil {
		t.Fatal(err)
	}
	if code := f.run(t, "scan", "--update"); code != exitOK {
		t.Fatalf("scan --update: exit %d", code)
	}
	st, err := baseline.Open(baseline.Options{Dir: f.state, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.View(func(tx *baseline.Tx) error {
		recs, err := tx.Records()
		if err == nil && len(recs) != 1 {
			err = fmt.Errorf("%d records, want 1", len(recs))
		}
		if err == nil {
			f.id = recs[0].ID
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return f
}

// forgetAsking runs forget on a terminal, calls meanwhile while its prompt
// waits for a person, then answers yes. It returns forget's exit code.
func (f *forgetFixture) forgetAsking(t *testing.T, meanwhile func()) (int, string) {
	master, slave := openPTY(t)
	var out bytes.Buffer
	errw := &promptWriter{asked: make(chan struct{})}
	s := streams{in: slave, out: &out, err: errw, getenv: func(k string) (string, bool) { v, ok := f.env[k]; return v, ok }}
	done := make(chan int)
	go func() { done <- runWith([]string{"forget", f.id}, s) }()
	select {
	case <-errw.asked:
	case code := <-done:
		t.Fatalf("forget ended (exit %d) without asking: %s", code, errw)
	}
	meanwhile()
	if _, err := master.WriteString("y\n"); err != nil {
		t.Fatal(err)
	}
	return <-done, errw.String()
}

func (f *forgetFixture) record(t *testing.T) *baseline.Record {
	t.Helper()
	st, err := baseline.Open(baseline.Options{Dir: f.state, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var r *baseline.Record
	if err := st.View(func(tx *baseline.Tx) (err error) { r, err = tx.Record(f.id); return err }); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestForgetDoesNotHoldTheStoreWhileItAsks(t *testing.T) {
	f := newForgetFixture(t)
	code, stderr := f.forgetAsking(t, func() {
		// What a session start does: take the store's exclusive lock.
		st, err := baseline.Open(baseline.Options{Dir: f.state, LockTimeout: 200 * time.Millisecond})
		if err != nil {
			t.Errorf("the store is held while forget asks: %v", err)
			return
		}
		st.Close()
	})
	if code != exitOK {
		t.Fatalf("forget: exit %d: %s", code, stderr)
	}
	if r := f.record(t); r != nil {
		t.Errorf("the record is still there: %+v", r)
	}
}

func TestForgetRefusesARecordThatChangedWhileItAsked(t *testing.T) {
	f := newForgetFixture(t)
	code, stderr := f.forgetAsking(t, func() {
		if code := f.run(t, "record", f.id, "--verdict", "BLOCK"); code != exitOK {
			t.Errorf("record while forget asks: exit %d (the store was held)", code)
		}
	})
	if code != exitFinding || !strings.Contains(stderr, "changed since it was shown") {
		t.Fatalf("forget: exit %d, stderr %q; want 3, refused", code, stderr)
	}
	if r := f.record(t); r == nil || r.Verdict == nil || r.Verdict.Verdict != verdict.Block {
		t.Errorf("the record recorded meanwhile is gone or changed: %+v", r)
	}
}
