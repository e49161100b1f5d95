package walker

import (
	"encoding/hex"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// Filesystems whose ctime only the local kernel sets, and sets again for
// every change of content. FUSE and network filesystems report what a
// server says; an overlay reports its lower layers', which can be either.
// tmpfs is not one: a write through a shared mapping moves no ctime until
// the page is written back, and tmpfs never writes one back (measured:
// the second write of a mapped file on /dev/shm 45 s and a sync later left
// its ctime, on ext4 it moved it). zfs has no constant in x/sys.
const zfsSuperMagic = 0x2fc12fc2

// KeepsCtime reports whether a file of a filesystem of statfs type fsType
// may be trusted unchanged while its ctime is. The served copies' stamps
// (gate/served) ask it too.
func KeepsCtime(fsType int64) bool {
	switch fsType {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.BCACHEFS_SUPER_MAGIC, zfsSuperMagic:
		return true
	}
	return false
}

// localCtime reports whether the filesystem of the directory dirfd
// (device dev) keeps ctime in the kernel. It asks statfs once per device.
func (h *Hashes) localCtime(dirfd int, dev uint64) bool { return localCtime(&h.classes, dirfd, dev) }

// localCtime is Hashes.localCtime with its cache of classes.
func localCtime(classes *sync.Map, dirfd int, dev uint64) bool {
	if v, ok := classes.Load(dev); ok {
		return v.(bool)
	}
	var sf unix.Statfs_t
	if err := unix.Fstatfs(dirfd, &sf); err != nil {
		return false
	}
	ok := KeepsCtime(int64(sf.Type))
	classes.Store(dev, ok)
	return ok
}

// buildID binds a cache to this boot and to the executable running: its
// identity, as statx gives it. A rebuilt or reinstalled skillwire is
// another file, or the same one written, so its records are not taken.
func buildID() ([32]byte, bool) {
	boot, ok := bootID()
	if !ok {
		return [32]byte{}, false
	}
	var id hashRec
	dir, err := unix.Open("/proc/self", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return [32]byte{}, false
	}
	defer unix.Close(dir)
	// statx does not follow exe with AT_SYMLINK_NOFOLLOW: stat it through.
	var sx unix.Statx_t
	if unix.Statx(dir, "exe", unix.AT_STATX_SYNC_AS_STAT, statxMask, &sx) != nil || sx.Mask&statxMask != statxMask {
		return [32]byte{}, false
	}
	id = hashRec{mnt: sx.Mnt_id, dev: unix.Mkdev(sx.Dev_major, sx.Dev_minor), ino: sx.Ino, size: int64(sx.Size),
		mode: uint32(sx.Mode), mtime: [2]int64{sx.Mtime.Sec, int64(sx.Mtime.Nsec)}, ctime: [2]int64{sx.Ctime.Sec, int64(sx.Ctime.Nsec)}}
	return blake3.Sum256(id.append(boot[:])), true
}

// statxMask: the basic stats and the mount's id, unique for the boot. A
// remount gets a new one. So a filesystem changed while unmounted never
// matches a record.
const statxMask = unix.STATX_BASIC_STATS | unix.STATX_MNT_ID_UNIQUE

// identify is the one system call an unchanged file costs: statx of name
// in dirfd, not following a link, into id. It reports false for anything
// that cannot be reused: not a regular file, no unique mount id.
func identify(dirfd int, name zname, id *hashRec) bool { return identifyErr(dirfd, name, id) == nil }

// identifyErr is identify, saying why not: the errno of statx, or
// errNotRegular.
func identifyErr(dirfd int, name zname, id *hashRec) error {
	var sx unix.Statx_t
	for {
		_, _, e := unix.Syscall6(unix.SYS_STATX, uintptr(dirfd), uintptr(unsafe.Pointer(&name[0])),
			unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_SYNC_AS_STAT, statxMask, uintptr(unsafe.Pointer(&sx)), 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		break
	}
	if sx.Mask&statxMask != statxMask || uint32(sx.Mode)&unix.S_IFMT != unix.S_IFREG {
		return errNotRegular
	}
	*id = hashRec{mnt: sx.Mnt_id, dev: unix.Mkdev(sx.Dev_major, sx.Dev_minor), ino: sx.Ino, size: int64(sx.Size),
		mode: uint32(sx.Mode), mtime: [2]int64{sx.Mtime.Sec, int64(sx.Mtime.Nsec)}, ctime: [2]int64{sx.Ctime.Sec, int64(sx.Ctime.Nsec)}}
	return nil
}

// bootID is the kernel's id of this boot, read once: both caches ask.
var bootID = sync.OnceValues(readBootID)

func readBootID() ([16]byte, bool) {
	var id [16]byte
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return id, false
	}
	s := strings.ReplaceAll(strings.TrimSpace(string(b)), "-", "")
	if len(s) != 2*len(id) {
		return id, false
	}
	if n, err := hex.Decode(id[:], []byte(s)); err != nil || n != 16 {
		return id, false
	}
	return id, true
}

func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// stat is the arrival proof's expectation for the file id names.
func (id *hashRec) stat() unix.Stat_t { return unix.Stat_t{Dev: id.dev, Ino: id.ino, Mode: id.mode} }

// dirIdent is the identity of the directory fd, opened by the walk and
// described by st, when the walk keeps identities and its filesystem
// keeps ctime in the kernel.
func (w *cwalk) dirIdent(fd int, st *unix.Stat_t) Ident {
	if !w.s.cfg.Idents || w.s.reuse == nil || !w.s.reuse.localCtime(fd, uint64(st.Dev)) {
		return Ident{}
	}
	return Ident{Dev: uint64(st.Dev), Ino: st.Ino, Mode: st.Mode, Size: st.Size,
		Mtime: [2]int64{st.Mtim.Sec, st.Mtim.Nsec}, Ctime: [2]int64{st.Ctim.Sec, st.Ctim.Nsec}}
}
