package trust

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline/internal/storefile"
	bolt "go.etcd.io/bbolt"
)

func TestTrustSourcesAreKeptAndValidated(t *testing.T) {
	st := openNew(t)
	must(t, st.Update(func(tx *bolt.Tx) error {
		for _, s := range []string{"skill-creator", "refiner"} {
			if err := Of(tx).Add(s); err != nil {
				return err
			}
		}
		return nil
	}))
	for _, bad := range []string{"", "two words", "tab\tx", "\x1b[31m", strings.Repeat("s", 129), "caf\xc3\xa9"} {
		err := st.Update(func(tx *bolt.Tx) error { return Of(tx).Add(bad) })
		if !errors.Is(err, ErrSourceName) {
			t.Errorf("Trust(%q) = %v, want ErrSourceName", bad, err)
		}
	}
	var got []string
	must(t, st.Update(func(tx *bolt.Tx) error {
		if ok, err := Of(tx).Remove("refiner"); !ok || err != nil {
			t.Errorf("untrust refiner: %v %v", ok, err)
		}
		if ok, _ := Of(tx).Remove("nobody"); ok {
			t.Error("untrusted a source never trusted")
		}
		var err error
		got, err = Of(tx).List()
		return err
	}))
	if strings.Join(got, ",") != "skill-creator" {
		t.Fatalf("sources %v", got)
	}
}

func openNew(t *testing.T) *storefile.DB {
	t.Helper()
	db, err := storefile.Open(storefile.Options{Dir: filepath.Join(t.TempDir(), "state"), Create: true})
	must(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
