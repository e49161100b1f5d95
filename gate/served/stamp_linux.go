package served

import (
	"encoding/binary"
	"sync"
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
	st := newStamper(now)
	local := map[uint64]bool{}
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
		var s unix.Stat_t
		if unix.Lstat(p, &s) != nil {
			return sum, false, false
		}
		keeps, seen := local[s.Dev]
		if !seen {
			var fs unix.Statfs_t
			keeps = unix.Statfs(p, &fs) == nil && keepsCtime(int64(fs.Type))
			local[s.Dev] = keeps
		}
		if !keeps {
			return sum, false, false
		}
		st.add(rel, walker.Ident{Dev: s.Dev, Ino: s.Ino, Mode: s.Mode, Size: s.Size,
			Mtime: [2]int64{s.Mtim.Sec, s.Mtim.Nsec}, Ctime: [2]int64{s.Ctim.Sec, s.Ctim.Nsec}})
	}
	sum, racy = st.sum()
	return sum, racy, true
}

// StampWalked is Stamp of the candidate c, made from the identities its
// walk stated (walker.Config.Idents), with no stat of its own. A walk's
// identity of a file is the one its hash is of, and of a directory the
// one before its listing. So a write after the walk saw an entry makes a
// later Stamp differ. ok is false when the walk kept no identity of some
// entry (a link, an anomaly, a filesystem whose ctime proves nothing), or
// c is a link observed through: then Stamp states it.
func StampWalked(c *walker.Candidate, now time.Time) (sum snapshot.Hash, racy, ok bool) {
	es := c.Manifest.Entries
	if len(c.Idents) != len(es) || c.Manifest.ViaLink || len(es) == 0 || len(es[0].Path) != 0 {
		return sum, false, false
	}
	st := newStamper(now)
	for i := range es {
		if !c.Idents[i].Known() {
			return sum, false, false
		}
		st.add(es[i].Path, c.Idents[i])
	}
	sum, racy = st.sum()
	return sum, racy, true
}

// stamper is the one encoding of a stamp: for each entry, the candidate
// first, its path and identity.
type stamper struct {
	h    *blake3.Hasher
	buf  []byte
	cut  time.Time
	racy bool
}

// hashers keeps the stamps' hashers for the next candidate. A start stamps
// every candidate it serves, and a new hasher is 8 KiB to fault in.
var hashers = sync.Pool{New: func() any { return blake3.New() }}

func newStamper(now time.Time) *stamper {
	h := hashers.Get().(*blake3.Hasher)
	h.Reset()
	return &stamper{h: h, cut: now.Add(-walker.RacyWindow)}
}

func (s *stamper) add(rel []byte, id walker.Ident) {
	s.racy = s.racy || !time.Unix(id.Ctime[0], id.Ctime[1]).Before(s.cut)
	s.buf = binary.BigEndian.AppendUint32(s.buf[:0], uint32(len(rel)))
	s.buf = append(s.buf, rel...)
	for _, v := range []uint64{id.Dev, id.Ino, uint64(id.Mode), uint64(id.Size),
		uint64(id.Mtime[0]), uint64(id.Mtime[1]), uint64(id.Ctime[0]), uint64(id.Ctime[1])} {
		s.buf = binary.BigEndian.AppendUint64(s.buf, v)
	}
	s.h.Write(s.buf)
}

// sum is the stamp. The stamper is spent: its hasher goes back to hashers.
func (s *stamper) sum() (sum snapshot.Hash, racy bool) {
	s.h.Sum(sum[:0])
	hashers.Put(s.h)
	s.h = nil
	return sum, s.racy
}

// keepsCtime: the filesystems whose ctime only the local kernel sets, as
// walker's hash cache reads them (walker.KeepsCtime): a stamp trusts what
// the cache trusts.
func keepsCtime(fsType int64) bool { return walker.KeepsCtime(fsType) }
