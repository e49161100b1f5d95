package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// tree makes dir/real, a regular file holding "keep". Beside it are a
// link to it, a dangling link, a directory and a FIFO.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, err := range []error{
		os.WriteFile(dir+"/real", []byte("keep"), 0o600),
		os.Symlink("real", dir+"/link"),
		os.Symlink("nowhere", dir+"/dangling"),
		os.Mkdir(dir+"/sub", 0o700),
		unix.Mkfifo(dir+"/fifo", 0o600),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestReadRefusesWhatIsNotARegularFileWithoutBlocking(t *testing.T) {
	dir := tree(t)
	for _, c := range []struct {
		name    string
		symlink bool
	}{{"link", true}, {"dangling", true}, {"sub", false}, {"fifo", false}} {
		t.Run(c.name, func(t *testing.T) {
			// A FIFO opened without O_NONBLOCK would hang here, and the
			// test with it. No writer ever comes.
			_, _, err := Read(dir+"/"+c.name, 1<<20, Trust{})
			if !errors.Is(err, ErrNotRegular) {
				t.Fatalf("error %v, want ErrNotRegular", err)
			}
			if errors.Is(err, ErrSymlink) != c.symlink {
				t.Errorf("errors.Is(%v, ErrSymlink) = %v, want %v", err, !c.symlink, c.symlink)
			}
		})
	}
	if _, _, err := Read(dir+"/absent", 10, Trust{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent: %v, want fs.ErrNotExist", err)
	}
}

func TestReadRefusesAFileOverTheBound(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		size int
		ok   bool
	}{{0, true}, {99, true}, {100, true}, {101, false}, {4096, false}} {
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, []byte(strings.Repeat("x", c.size)), 0o600); err != nil {
			t.Fatal(err)
		}
		b, _, err := Read(path, 100, Trust{})
		switch {
		case c.ok && (err != nil || len(b) != c.size):
			t.Errorf("size %d: %d bytes, %v; want it read whole", c.size, len(b), err)
		case !c.ok && !errors.Is(err, ErrTooLarge):
			t.Errorf("size %d: %v, want ErrTooLarge", c.size, err)
		}
	}
}

// TestReadIsWholeWhateverFstatSaid: the buffer is sized by fstat, the read
// is not. A file may hold more than its size says: a /proc file says 0.
// It is read whole, and still refused past the bound.
func TestReadIsWholeWhateverFstatSaid(t *testing.T) {
	const path = "/proc/self/cmdline"
	want, err := os.ReadFile(path)
	if err != nil || len(want) == 0 {
		t.Skipf("no %s to read: %v", path, err)
	}
	b, _, err := Read(path, 1<<20, Trust{})
	if err != nil || string(b) != string(want) {
		t.Fatalf("read %q, %v; want %q", b, err, want)
	}
	if _, _, err := Read(path, int64(len(want)-1), Trust{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a bound one byte short: %v, want ErrTooLarge", err)
	}
}

func TestReadChecksTrustOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/f"
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		mode  fs.FileMode
		trust Trust
		want  error
	}{
		{"private file, no check", 0o600, Trust{}, nil},
		{"group-writable, no check", 0o664, Trust{}, nil},
		{"group-writable refused", 0o664, Trust{DenyPerm: 0o022}, ErrPermissive},
		{"other-writable refused", 0o606, Trust{DenyPerm: 0o022}, ErrPermissive},
		{"readable by all allowed", 0o644, Trust{Owner: true, DenyPerm: 0o022}, nil},
		{"own file passes the owner check", 0o600, Trust{Owner: true}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.Chmod(path, c.mode); err != nil {
				t.Fatal(err)
			}
			_, _, err := Read(path, 10, c.trust)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
		})
	}
}

func TestReadRefusesAFileOwnedByAnotherUser(t *testing.T) {
	// As root, a file is given away to nobody. Otherwise /etc/passwd is
	// root's on every Unix.
	path := "/etc/passwd"
	if os.Geteuid() == 0 {
		path = t.TempDir() + "/f"
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Read(path, 1<<20, Trust{}); err != nil {
			t.Fatalf("without the owner check: %v", err)
		}
	}
	if _, _, err := Read(path, 1<<20, Trust{Owner: true}); !errors.Is(err, ErrNotOwner) {
		t.Errorf("error %v, want ErrNotOwner", err)
	}
}

func TestWriteReplacesAtomicallyWithTheModeAsked(t *testing.T) {
	old := unix.Umask(0o077) // the mode asked holds whatever the umask
	defer unix.Umask(old)
	dir := t.TempDir()
	path := dir + "/f"
	for _, c := range []struct {
		data string
		perm fs.FileMode
	}{{"first\n", 0o644}, {"second\n", 0o600}, {"third\n", 0o640}} {
		if err := Write(path, []byte(c.data), c.perm, nil); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode() != c.perm {
			t.Fatalf("mode %v, %v; want %v", fi.Mode(), err, c.perm)
		}
		if got, _ := os.ReadFile(path); string(got) != c.data {
			t.Fatalf("read %q, want %q", got, c.data)
		}
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("left behind: %v", got)
	}
}

func TestWriteRefusesATargetThatIsNotARegularFile(t *testing.T) {
	dir := tree(t)
	for _, name := range []string{"link", "dangling", "sub", "fifo"} {
		t.Run(name, func(t *testing.T) {
			path := dir + "/" + name
			before, _ := os.Lstat(path)
			if err := Write(path, []byte("new"), 0o600, nil); !errors.Is(err, ErrNotRegular) {
				t.Fatalf("error %v, want ErrNotRegular", err)
			}
			after, _ := os.Lstat(path)
			if before.Mode() != after.Mode() || !os.SameFile(before, after) {
				t.Errorf("the target was replaced")
			}
		})
	}
	if got, _ := os.ReadFile(dir + "/real"); string(got) != "keep" {
		t.Errorf("written through the link: %q", got)
	}
	if got := names(t, dir); len(got) != 5 {
		t.Errorf("left behind: %v", got)
	}
}

func TestWriteThatStopsBeforeTheRenameLeavesTheTargetWhole(t *testing.T) {
	// check failing stands for a crash between the durable temporary file
	// and the rename. The target keeps its old bytes. Nothing else of the
	// attempt stays.
	dir := t.TempDir()
	path := dir + "/f"
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stopped")
	var seen []string
	err := Write(path, []byte("new"), 0o600, func() error {
		seen = names(t, dir)
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("error %v, want the check's", err)
	}
	if len(seen) != 2 {
		t.Errorf("at the check the directory held %v, want the target and one temporary file", seen)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("target %q, want it untouched", got)
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("left behind: %v", got)
	}
}

func TestTemporaryFilesLeftByACrashNeverReplaceTheTarget(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/f"
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	// What a writer killed before its rename leaves: temporary files of
	// the target's name. One is a link planted in their place.
	stale := []string{dir + "/.f.tmp-0123456789abcdef", dir + "/.f.tmp-link"}
	if err := os.WriteFile(stale[0], []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", stale[1]); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("target %q, want the new content", got)
	}
	if got, _ := os.ReadFile(stale[0]); string(got) != "half" {
		t.Errorf("a stale temporary file was reused: %q", got)
	}
	if fi, err := os.Lstat(stale[1]); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("a stale link was replaced: %v", err)
	}
	if got := names(t, dir); len(got) != 3 {
		t.Errorf("directory holds %v", got)
	}
}

func TestCreateNeverReplaces(t *testing.T) {
	dir := tree(t)
	for _, name := range []string{"real", "link", "dangling", "sub", "fifo"} {
		t.Run(name, func(t *testing.T) {
			if err := Create(dir+"/"+name, []byte("new"), 0o600); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("error %v, want fs.ErrExist", err)
			}
		})
	}
	if got, _ := os.ReadFile(dir + "/real"); string(got) != "keep" {
		t.Errorf("real is %q", got)
	}
	if err := Create(dir+"/new", []byte("fresh"), 0o640); err != nil {
		t.Fatal(err)
	}
	if b, fi, err := Read(dir+"/new", 10, Trust{}); err != nil || string(b) != "fresh" || fi.Mode() != 0o640 {
		t.Errorf("created %q %v %v", b, fi.Mode(), err)
	}
	if got := names(t, dir); len(got) != 6 {
		t.Errorf("left behind: %v", got)
	}
}

func TestDirOfIsCutAsText(t *testing.T) {
	for in, want := range map[string]string{"f": ".", "/f": "/", "a/f": "a", "a/../f": "a/.."} {
		if got := dirOf(in); got != want {
			t.Errorf("dirOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte("x"), int64(1))
	f.Add([]byte(""), int64(0))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, max int64) {
		if max < 0 || max > 1<<16 {
			return
		}
		path := dir + "/f"
		if err := Write(path, data, 0o600, nil); err != nil {
			t.Fatal(err)
		}
		b, _, err := Read(path, max, Trust{Owner: true, DenyPerm: 0o022})
		if int64(len(data)) > max {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%d bytes over %d: %v", len(data), max, err)
			}
			return
		}
		if err != nil || string(b) != string(data) {
			t.Fatalf("read %q, %v; want %q", b, err, data)
		}
	})
}

// The *At functions take one entry name of the directory the caller
// proved. Anything that would reach past it is refused before any call.
func TestAtFunctionsRefuseWhatIsNotOneName(t *testing.T) {
	dir := tree(t)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(d)
	for _, name := range []string{"", ".", "..", "sub/x", "../real", "/etc/passwd", "a\x00b", strings.Repeat("x/", 300)} {
		if _, _, err := ReadAt(d, name, 10, Trust{}); !errors.Is(err, ErrName) {
			t.Errorf("ReadAt(%q) = %v", name, err)
		}
		if err := WriteAt(d, name, []byte("x"), 0o600, nil); !errors.Is(err, ErrName) {
			t.Errorf("WriteAt(%q) = %v", name, err)
		}
		if err := CreateAt(d, name, []byte("x"), 0o600, nil); !errors.Is(err, ErrName) {
			t.Errorf("CreateAt(%q) = %v", name, err)
		}
	}
	if got := names(t, dir); len(got) != 5 {
		t.Errorf("written: %v", got)
	}
}

// Once the directory is held, swapping a link in for it changes nothing.
// The file is written in the held directory.
func TestAtFunctionsWriteInTheHeldDirectoryAfterASwap(t *testing.T) {
	base := t.TempDir()
	dir, other := base+"/d", base+"/other"
	for _, p := range []string{dir, other} {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(d)
	if err := os.Rename(dir, base+"/moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, dir); err != nil {
		t.Fatal(err)
	}
	if err := WriteAt(d, "f", []byte("w"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if err := CreateAt(d, "g", []byte("c"), 0o640, &Owner{UID: os.Getuid(), GID: os.Getgid()}); err != nil {
		t.Fatal(err)
	}
	if b, _, err := ReadAt(d, "f", 10, Trust{}); err != nil || string(b) != "w" {
		t.Fatalf("ReadAt = %q, %v", b, err)
	}
	if got := names(t, other); len(got) != 0 {
		t.Fatalf("written through the link: %v", got)
	}
	if got := names(t, base+"/moved"); len(got) != 2 {
		t.Fatalf("held directory holds %v", got)
	}
	if fi, err := os.Stat(base + "/moved/g"); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("g: %v, %v", fi, err)
	}
}

// TestModeTypeIsTheOneTableFromFileModeToEntryType: every stat type has
// one entry type. A type the table does not know is irregular.
func TestModeTypeIsTheOneTableFromFileModeToEntryType(t *testing.T) {
	for _, c := range []struct {
		name string
		mode uint32
		want fs.FileMode
	}{
		{"regular", unix.S_IFREG | 0o644, 0},
		{"dir", unix.S_IFDIR | 0o755, fs.ModeDir},
		{"symlink", unix.S_IFLNK | 0o777, fs.ModeSymlink},
		{"fifo", unix.S_IFIFO | 0o600, fs.ModeNamedPipe},
		{"socket", unix.S_IFSOCK | 0o600, fs.ModeSocket},
		{"char device", unix.S_IFCHR | 0o666, fs.ModeDevice | fs.ModeCharDevice},
		{"block device", unix.S_IFBLK | 0o660, fs.ModeDevice},
		{"unknown: no type bits", 0o644, fs.ModeIrregular},
		{"unknown: every type bit", unix.S_IFMT, fs.ModeIrregular},
	} {
		if got := ModeType(c.mode); got != c.want {
			t.Errorf("%s: ModeType(%#o) = %v, want %v", c.name, c.mode, got, c.want)
		}
	}
}
