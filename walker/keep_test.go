package walker

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
)

// kept collects what Keep received, copied (the buffer is the reader's).
type kept struct {
	mu    sync.Mutex
	byKey map[snapshot.Hash][]byte
	calls int
}

func (k *kept) Keep(h snapshot.Hash, data []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.byKey[h] = bytes.Clone(data)
	k.calls++
}

func keeping(cfg Config) (Config, *kept) {
	k := &kept{byKey: map[snapshot.Hash][]byte{}}
	cfg.Keep = k
	return cfg, k
}

func TestKeepReceivesExactlyTheBytesThatWereHashed(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), (maxReadBuf*3)/16+7) // several read buffers
	testtree.Make(t, dir, "s/a=alpha", "s/empty=", "s/d/b=beta")
	testtree.Must(t, os.WriteFile(filepath.Join(dir, "s/big"), big, 0o644))
	for _, workers := range []int{1, 4} {
		cfg, k := keeping(Config{Limits: DefaultLimits, Budget: DefaultBudget, Workers: workers})
		c := observe(t, dir, "s", cfg)
		files := 0
		for _, e := range c.Manifest.Entries {
			if e.Kind != snapshot.File {
				continue
			}
			files++
			data, ok := k.byKey[e.Hash]
			if !ok {
				t.Fatalf("workers=%d: %q was not kept", workers, e.Path)
			}
			if snapshot.Hash(blake3.Sum256(data)) != e.Hash || int64(len(data)) != e.Size {
				t.Fatalf("workers=%d: %q kept %d bytes that do not hash to its entry", workers, e.Path, len(data))
			}
		}
		if files != 4 || k.calls != 4 {
			t.Fatalf("workers=%d: %d files, %d Keep calls, want 4 and 4", workers, files, k.calls)
		}
		if !bytes.Equal(k.byKey[snapshot.Hash(blake3.Sum256(big))], big) {
			t.Fatal("the large file was not kept whole")
		}
	}
}

func TestKeepWithAndWithoutGiveTheSameManifest(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/a=alpha", "s/x*=run", "s/d/b=beta", "s/l -> a")
	plain := observe(t, dir, "s", DefaultConfig())
	cfg, _ := keeping(DefaultConfig())
	withKeep := observe(t, dir, "s", cfg)
	if plain.Digest != withKeep.Digest {
		t.Fatalf("keeping changed the digest: %s vs %s", plain.Digest, withKeep.Digest)
	}
}

func TestKeepNeverReceivesAnomaliesOversizeOrFilesOverTheKeepCap(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/small=01", "s/mid=012345", "s/huge=0123456789", "s/l -> small", "s/p|")
	cfg, k := keeping(DefaultConfig())
	cfg.MaxFileBytes = 8 // huge is oversize
	cfg.KeepMaxBytes = 4 // mid is hashed, not kept
	c := observe(t, dir, "s", cfg)
	want := map[string]bool{"small": true}
	for _, e := range c.Manifest.Entries {
		_, got := k.byKey[e.Hash]
		if e.Kind == snapshot.File && got != want[string(e.Path)] {
			t.Errorf("%q kept=%v, want %v", e.Path, got, want[string(e.Path)])
		}
	}
	if k.calls != 1 {
		t.Fatalf("Keep called %d times, want 1 (only small)", k.calls)
	}
}

func TestKeepNeverReceivesAFileThatChangedWhileRead(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/f=data", "s/g=other")
	target := filepath.Join(dir, "s/f")
	testHookRead = func(p []byte) {
		if string(p) == "f" {
			f, _ := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("more")
			f.Close()
		}
	}
	defer func() { testHookRead = nil }()
	cfg, k := keeping(Config{Limits: DefaultLimits, Budget: DefaultBudget, Workers: 1})
	observe(t, dir, "s", cfg)
	if k.calls != 1 {
		t.Fatalf("Keep called %d times, want 1 (g only)", k.calls)
	}
	if _, ok := k.byKey[snapshot.Hash(blake3.Sum256([]byte("other")))]; !ok {
		t.Fatal("the stable file was not kept")
	}
}
