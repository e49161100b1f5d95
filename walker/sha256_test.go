package walker

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/zeebo/blake3"
)

func TestSHA256OfFilesReachedAsObserveReachesThem(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir,
		"s/SKILL.md=hello", "s/lib/deep/x.py=print(1)", "s/empty=",
		"agent.md=you are an agent",
		"checkout/linked/SKILL.md=through the link", "linked -> checkout/linked",
		"checkout/file.md=linked file", "filelink -> checkout/file.md")
	for _, tc := range []struct{ name, path, content string }{
		{"s", "SKILL.md", "hello"},
		{"s", "lib/deep/x.py", "print(1)"},
		{"s", "empty", ""},
		{"agent.md", "", "you are an agent"}, // a file candidate itself
		// A top-level link is followed, as Observe follows it.
		{"linked", "SKILL.md", "through the link"},
		{"filelink", "", "linked file"},
	} {
		t.Run(tc.name+"/"+tc.path, func(t *testing.T) {
			sum, r, err := SHA256(dir, []byte(tc.name), []byte(tc.path), DefaultLimits)
			if err != nil || r != 0 {
				t.Fatalf("SHA256 = %v, %v", r, err)
			}
			if want := sha256.Sum256([]byte(tc.content)); sum != want {
				t.Fatalf("sum %x, want %x", sum, want)
			}
		})
	}
}

func TestSHA256RefusesEverythingButARegularFile(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir,
		"outside/SECRET=x",
		"s/link -> ../outside/SECRET", "s/dirlink -> ../outside", "s/pipe|", "s/sub/f", "s/big=0123456789")
	lim := DefaultLimits
	lim.MaxFileBytes = 5
	lim.MaxDepth = 3
	for _, tc := range []struct {
		path string
		want anomaly.Reason
	}{
		{"link", anomaly.Symlink},
		{"dirlink/SECRET", anomaly.Symlink}, // a link is never walked through
		{"pipe", anomaly.Special},
		{"big", anomaly.Oversize},
		{"a/b/c/d", anomaly.Depth},
	} {
		t.Run(tc.path, func(t *testing.T) {
			var r anomaly.Reason
			var err error
			var sum [32]byte
			runWithin(t, 10*time.Second, func() { sum, r, err = SHA256(dir, []byte("s"), []byte(tc.path), lim) })
			if err != nil || r != tc.want {
				t.Fatalf("SHA256 = %v, %v; want %v", r, err, tc.want)
			}
			if sum != ([32]byte{}) {
				t.Fatal("a refused file carries a hash")
			}
		})
	}
}

func TestSHA256OfWhatIsNotThere(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/f", "s/sub/")
	for _, tc := range []struct {
		name, path string
		want       error
	}{
		{"s", "missing", fs.ErrNotExist},
		{"s", "f/below-a-file", fs.ErrNotExist},
		{"s", "nodir/f", fs.ErrNotExist},
		{"gone", "f", fs.ErrNotExist},
		{"s", "sub", ErrNotFile},
		{"s", "", ErrNotFile},
	} {
		t.Run(tc.name+"/"+tc.path, func(t *testing.T) {
			_, r, err := SHA256(dir, []byte(tc.name), []byte(tc.path), DefaultLimits)
			if r != 0 || !errors.Is(err, tc.want) {
				t.Fatalf("SHA256 = %v, %v; want %v", r, err, tc.want)
			}
		})
	}
}

func TestSHA256RefusesDotsAndEmptyComponentsWithoutOpening(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "outside=x", "s/f")
	for _, p := range []string{"../outside", "./f", "a//f", "f/", "/f", "f\x00"} {
		if _, r, err := SHA256(dir, []byte("s"), []byte(p), DefaultLimits); err == nil || r != 0 {
			t.Errorf("%q: SHA256 = %v, %v; want an error", p, r, err)
		}
	}
	for _, n := range []string{"", "s/f", "..", "."} {
		if _, _, err := SHA256(dir, []byte(n), nil, DefaultLimits); err == nil {
			t.Errorf("name %q accepted", n)
		}
	}
}

func TestSHA256OfAFileChangedWhileReadIsUnstable(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/f=data")
	target := filepath.Join(dir, "s/f")
	testHookRead = func([]byte) {
		f, _ := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("more")
		f.Close()
	}
	defer func() { testHookRead = nil }()
	sum, r, err := SHA256(dir, []byte("s"), []byte("f"), DefaultLimits)
	if err != nil || r != anomaly.Unstable || sum != ([32]byte{}) {
		t.Fatalf("SHA256 = %x, %v, %v; want Unstable and no hash", sum, r, err)
	}
}

func TestSHA256OfAnUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		runUnprivileged(t, "TestSHA256OfAnUnreadableFile")
		return
	}
	dir := t.TempDir()
	testtree.Make(t, dir, "s/secret=x")
	testtree.Must(t, os.Chmod(filepath.Join(dir, "s/secret"), 0))
	if _, r, err := SHA256(dir, []byte("s"), []byte("secret"), DefaultLimits); err != nil || r != anomaly.Unreadable {
		t.Fatalf("SHA256 = %v, %v; want Unreadable", r, err)
	}
}

// The real race: a goroutine flips a file and a link to outside content
// while hashes run. No hash may ever be of the outside content, and the
// swap must be seen at least once.
func TestRaceSHA256NeverHashesOutsideContent(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "outside=SECRET", "s/f=inside", "s/sub/g=inside too")
	link := filepath.Join(dir, "link")
	testtree.Must(t, os.Symlink(filepath.Join(dir, "outside"), link))
	dlink := filepath.Join(dir, "dlink")
	testtree.Must(t, os.Symlink(dir, dlink))
	secret := sha256.Sum256([]byte("SECRET"))

	stop := keepExchanging(t, [2]string{filepath.Join(dir, "s/f"), link}, [2]string{filepath.Join(dir, "s/sub"), dlink})
	refused := 0
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; time.Now().Before(deadline) && (refused == 0 || i < 2000); i++ {
		for _, p := range []string{"f", "sub/g", "sub/outside"} {
			sum, r, err := SHA256(dir, []byte("s"), []byte(p), DefaultLimits)
			if err == nil && r == 0 && sum == secret {
				stop()
				t.Fatalf("iteration %d: %s hashed content from outside the candidate", i, p)
			}
			if r == anomaly.Swapped || r == anomaly.Symlink {
				refused++
			}
		}
	}
	stop()
	if refused == 0 {
		t.Fatal("the swap was never seen in 20s: the race test proves nothing")
	}
}

func TestSHA256ObservedReturnsTheBLAKE3OfTheBytesItHashed(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("0123456789abcdef", maxReadBuf/8) // more than one read
	testtree.Make(t, dir, "s/small=hello", "s/empty=", "s/big="+big)
	for _, tc := range []struct{ path, content string }{
		{"small", "hello"}, {"empty", ""}, {"big", big},
	} {
		t.Run(tc.path, func(t *testing.T) {
			sum, b3, r, err := SHA256Observed(dir, []byte("s"), []byte(tc.path), DefaultLimits)
			if err != nil || r != 0 {
				t.Fatalf("SHA256Observed = %v, %v", r, err)
			}
			if want := sha256.Sum256([]byte(tc.content)); sum != want {
				t.Fatalf("sha256 %x, want %x", sum, want)
			}
			if want := blake3.Sum256([]byte(tc.content)); b3 != want {
				t.Fatalf("blake3 %x, want %x", b3, want)
			}
		})
	}
}
