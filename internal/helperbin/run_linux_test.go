package helperbin

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// marker ends the helper swapped in: an ELF runs with bytes after it.
const marker = "swapped"

// ownTail is marker when the file this process runs ends with it, read
// through /proc (the file itself, even once renamed over).
func ownTail() string {
	b, err := os.ReadFile("/proc/self/exe")
	switch {
	case err != nil:
		return "unreadable"
	case bytes.HasSuffix(b, []byte(marker)):
		return marker
	}
	return "proven"
}

// TestAHelperSwappedAfterItsProofIsNotRun: the file run is the file
// proven. A helper put in its place between the proof and the run (a
// prompt of service install waits there) never runs. Helpers are Go
// binaries: a script could not be run from its descriptor, as its
// interpreter opens it by a path closed at the exec.
func TestAHelperSwappedAfterItsProofIsNotRun(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "skillwire-x")
	if err := os.WriteFile(bin, body, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := opened(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	swap := bin + ".swap"
	if err := os.WriteFile(swap, append(body, marker...), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(swap, bin); err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeHelper, "tail")
	var rep struct{ Said string }
	if _, err := callFile(context.Background(), bin, f, []byte(`{"ask":"ship"}`), &rep); err != nil || rep.Said != "proven" {
		t.Errorf("ran the swapped file (%q, %v), not the file proven", rep.Said, err)
	}
	// Control: called by its path now, the swapped file is what runs.
	if _, err := Call(context.Background(), bin, map[string]string{"ask": "ship"}, &rep); err != nil || rep.Said != marker {
		t.Errorf("control: the swapped file gave %q, %v", rep.Said, err)
	}
}
