package walker

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillwire/skillwire/internal/pathname"
	"golang.org/x/sys/unix"
)

// ErrRefused wraps every refusal of a user-given path: nothing was opened.
var ErrRefused = errors.New("refused")

// SplitArg turns a path given on the command line into the directory to
// open and the candidate's name in it, without normalizing anything.
//
// Only trailing slashes are removed. A path whose last component is "." or
// that contains ".." anywhere is resolved only on arrival evidence: $PWD is
// set and absolute, is not itself a symlink, and is the same directory as
// both the path and the working directory; it then stands for $PWD. Without
// that evidence it is refused, as is an empty path (never "the cwd"). The
// kernel's reading of ".." through a link differs from the text's, and a
// "." names no candidate: spelling is never trusted.
func SplitArg(arg, pwd string, pwdSet bool) (dir string, name []byte, err error) {
	if arg == "" {
		return "", nil, refuse("an empty path names nothing")
	}
	p := strings.TrimRight(arg, "/")
	if p == "" {
		return "", nil, refuse("the filesystem root is not a candidate")
	}
	comps := strings.Split(p, "/")
	dotted := comps[len(comps)-1] == "."
	for _, c := range comps {
		if c == ".." {
			dotted = true
		}
	}
	if dotted {
		if err := arrivalEvidence(p, pwd, pwdSet); err != nil {
			return "", nil, err
		}
		p = strings.TrimRight(pwd, "/")
		if p == "" {
			return "", nil, refuse("the filesystem root is not a candidate")
		}
	}
	if dir = pathname.Parent(p); dir == "" {
		dir = "."
	}
	return dir, []byte(p[strings.LastIndexByte(p, '/')+1:]), nil
}

func refuse(why string) error { return fmt.Errorf("%w: %s", ErrRefused, why) }

func arrivalEvidence(p, pwd string, pwdSet bool) error {
	if !pwdSet || !strings.HasPrefix(pwd, "/") {
		return refuse("a path with . or .. needs $PWD set to an absolute path")
	}
	// A shell's $PWD has no . or .. components (POSIX); one that has them
	// would hand its last component, "." or "..", back as the name.
	for c := range strings.SplitSeq(pwd, "/") {
		if c == "." || c == ".." {
			return refuse("$PWD has . or .. components")
		}
	}
	var lpwd, spwd, sp, scwd unix.Stat_t
	if unix.Lstat(pwd, &lpwd) != nil || unix.Stat(pwd, &spwd) != nil {
		return refuse("$PWD does not exist")
	}
	if lpwd.Mode&unix.S_IFMT == unix.S_IFLNK {
		return refuse("$PWD is a symbolic link")
	}
	if unix.Stat(".", &scwd) != nil || !sameFile(&scwd, &spwd) {
		return refuse("$PWD is not the working directory")
	}
	if unix.Stat(p, &sp) != nil || !sameFile(&sp, &spwd) {
		return refuse("a path with . or .. is accepted only when it is the working directory itself")
	}
	return nil
}
