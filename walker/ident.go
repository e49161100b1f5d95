package walker

// Ident is an entry's identity as its walk saw it: what a stat of it
// then gave. A file's is the one its hash is of: the hash cache's
// identity when the hash was reused, else the fstat after its read. A
// directory's is the fstat of its open, before it was listed. So any
// write after the walk saw an entry moves what a later stat gives (its
// ctime, which no one can set back).
//
// Only a walk with Config.Idents and a Reuse in force keeps them. An
// entry the walk did not state (a link, an anomaly, a file on a
// filesystem whose ctime is not the local kernel's) has the zero Ident.
type Ident struct {
	Dev, Ino     uint64
	Mode         uint32
	Size         int64
	Mtime, Ctime [2]int64
}

// Known reports whether the walk stated the entry, on a filesystem whose
// ctime only the local kernel sets.
func (id Ident) Known() bool { return id.Mode != 0 }

func (r *hashRec) ident() Ident {
	return Ident{Dev: r.dev, Ino: r.ino, Mode: r.mode, Size: r.size, Mtime: r.mtime, Ctime: r.ctime}
}
