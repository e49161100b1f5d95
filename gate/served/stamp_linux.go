package served

import (
	"encoding/binary"
	"time"

	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// Stamp is the identity of the candidate name of root, entry by entry of m:
// the path, device, inode, mode, size, mtime and ctime. Any write moves a
// ctime, and no one can set one back. So an equal stamp later means no file
// was written since, even one whose bytes were put back. ok is false when a
// file cannot be stated, or lies on a filesystem whose ctime the local
// kernel does not keep: there a stamp proves nothing. racy: a ctime lies
// within walker.RacyWindow of now. A write in the same clock tick would
// leave it as it was.
func Stamp(root string, name []byte, m *snapshot.Manifest, now time.Time) (sum snapshot.Hash, racy, ok bool) {
	h := blake3.New()
	local := map[uint64]bool{}
	var buf []byte
	top := pathname.Join(root, string(name))
	for i := -1; i < len(m.Entries); i++ {
		rel := []byte(nil)
		if i >= 0 {
			if rel = m.Entries[i].Path; len(rel) == 0 {
				continue // the candidate itself, stated first
			}
		}
		p := top
		if len(rel) > 0 {
			p = pathname.Join(top, string(rel))
		}
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil {
			return sum, false, false
		}
		keeps, seen := local[st.Dev]
		if !seen {
			var fs unix.Statfs_t
			keeps = unix.Statfs(p, &fs) == nil && keepsCtime(int64(fs.Type))
			local[st.Dev] = keeps
		}
		if !keeps {
			return sum, false, false
		}
		ctime := time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
		racy = racy || !ctime.Before(now.Add(-walker.RacyWindow))
		buf = binary.BigEndian.AppendUint32(buf[:0], uint32(len(rel)))
		buf = append(buf, rel...)
		for _, v := range []uint64{st.Dev, st.Ino, uint64(st.Mode), uint64(st.Size),
			uint64(st.Mtim.Sec), uint64(st.Mtim.Nsec), uint64(st.Ctim.Sec), uint64(st.Ctim.Nsec)} {
			buf = binary.BigEndian.AppendUint64(buf, v)
		}
		h.Write(buf)
	}
	h.Sum(sum[:0])
	return sum, racy, true
}

// keepsCtime: the filesystems whose ctime only the local kernel sets, as
// walker's hash cache reads them. FUSE and network filesystems report what
// a server says. An overlay reports its lower layers'. zfs has no constant
// in x/sys.
func keepsCtime(fsType int64) bool {
	switch fsType {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.BCACHEFS_SUPER_MAGIC, 0x2fc12fc2:
		return true
	}
	return false
}
