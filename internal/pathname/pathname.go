// Package pathname cuts path names as text, below every package that opens
// them. Nothing here cleans a name or asks the filesystem about it.
package pathname

// Parent is the directory part of p, cut as text at its last '/'. It is
// "/" for a child of the root. It is empty for a single relative
// component: in a candidate, its root. Nothing is cleaned: the kernel, not
// the spelling, decides what "a/.." names.
func Parent[P ~string | ~[]byte](p P) P {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			if i == 0 {
				return p[:1]
			}
			return p[:i]
		}
	}
	return p[:0]
}

// Join appends one component to dir. It adds a '/' only when dir does not
// end in one. Neither is cleaned.
func Join(dir, name string) string {
	if len(dir) > 0 && dir[len(dir)-1] == '/' {
		return dir + name
	}
	return dir + "/" + name
}
