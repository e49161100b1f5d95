package baseline

import (
	"errors"
	"os"
	"testing"
)

func gatePolicyOf(t *testing.T, st *Store) (string, error) {
	t.Helper()
	var p string
	err := st.View(func(tx *Tx) (err error) { p, err = tx.Policy().Get(); return })
	return p, err
}

func TestGatePolicyDefaultsToBalancedAndKeepsWhatWasChosen(t *testing.T) {
	st, dir := openNew(t)
	if p, err := gatePolicyOf(t, st); err != nil || p != GateBalanced {
		t.Fatalf("unset policy: %q, %v; want balanced", p, err)
	}
	for _, p := range []string{GateStrict, GateAudit, GateBalanced} {
		t.Run(p, func(t *testing.T) {
			must(t, st.SetGatePolicy(dir, p))
			if got, err := gatePolicyOf(t, st); err != nil || got != p {
				t.Fatalf("policy %q, %v; want %q", got, err, p)
			}
			if got, ok := GatePolicyMirror(dir); !ok || got != p {
				t.Fatalf("mirror %q, %v; want %q", got, ok, p)
			}
		})
	}
}

func TestGatePolicyRefusesAnythingButTheThreeNames(t *testing.T) {
	st, dir := openNew(t)
	for _, p := range []string{"", "Strict", "allow", "strict\n", "balanced "} {
		if err := st.SetGatePolicy(dir, p); !errors.Is(err, ErrGatePolicy) {
			t.Errorf("SetGatePolicy(%q) = %v, want ErrGatePolicy", p, err)
		}
	}
	if _, ok := GatePolicyMirror(dir); ok {
		t.Fatal("a refused policy was mirrored")
	}
}

func TestGatePolicyOfAnotherValueIsCorruptNeverWeaker(t *testing.T) {
	st, _ := openNew(t)
	must(t, st.Update(func(tx *Tx) error { return tx.tx.Bucket(bucketMeta).Put(keyGatePolicy, []byte("none")) }))
	if _, err := gatePolicyOf(t, st); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("policy %q in the store: err %v, want ErrCorrupt", "none", err)
	}
}

func TestGatePolicyMirrorIsTrustedOnlyWhenOursAndClosed(t *testing.T) {
	st, dir := openNew(t)
	must(t, st.SetGatePolicy(dir, GateStrict))
	path := dir + "/" + GatePolicyFile
	must(t, os.Chmod(path, 0o622))
	if _, ok := GatePolicyMirror(dir); ok {
		t.Fatal("a group/world-writable mirror was trusted")
	}
	must(t, os.Remove(path))
	must(t, os.Symlink("/dev/null", path))
	if _, ok := GatePolicyMirror(dir); ok {
		t.Fatal("a symlinked mirror was trusted")
	}
	must(t, os.Remove(path))
	must(t, os.WriteFile(path, []byte("lenient\n"), 0o600))
	if _, ok := GatePolicyMirror(dir); ok {
		t.Fatal("a mirror naming no policy was trusted")
	}
}
