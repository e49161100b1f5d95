package e2e

// The coverage oracle. Every client run of the suite runs under strace. Its
// file calls say what the client read. Each path read under the world must
// lie in a place skillwire watches, or on the noise list (noise.go). Else
// the test that ran the client fails, naming the path.

import (
	"bufio"
	"io"
	"path"
	"strconv"
	"strings"
)

// traceCalls are the system calls strace records. The clone family tells
// a thread or child which program it runs (traceReads).
const traceCalls = "openat,openat2,statx,newfstatat,readlink,readlinkat,execve,clone,clone3,fork,vfork"

// straceArgs prefix a command to trace it into file. -y prints the path of
// every descriptor, the working directory's (AT_FDCWD) too. So a relative
// path resolves without tracking chdir.
func straceArgs(file string) []string {
	return []string{"strace", "-f", "--seccomp-bpf", "-qq", "-y", "-s", "256", "-e", "trace=" + traceCalls, "-o", file, "--"}
}

// access is one file call that read something and succeeded: an open for
// reading, a stat, a readlink or an execve.
type access struct {
	Pid  int
	Call string
	// Path is absolute. It is "" when it cannot be known: Unknown says why.
	Path    string
	Unknown string
	Prog    string // the program the process ran then ("" before any execve)
}

// call is one system call line, joined across unfinished and resumed.
type call struct {
	line int
	pid  int
	name string
	args []string
	ret  string // what follows " = "
}

// parseCalls reads strace -f output. A call split across an unfinished
// and a resumed line is joined at its resumed line. Signals, exits and
// lines of another shape are passed over.
func parseCalls(r io.Reader) []call {
	var out []call
	pending := map[int]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 0; sc.Scan(); n++ {
		line := sc.Text()
		sp := strings.IndexByte(line, ' ')
		if sp <= 0 {
			continue
		}
		pid, err := strconv.Atoi(line[:sp])
		if err != nil {
			continue
		}
		rest := strings.TrimLeft(line[sp:], " ")
		if strings.HasPrefix(rest, "<... ") {
			name, tail, ok := strings.Cut(rest[len("<... "):], " resumed>")
			head, had := pending[pid]
			delete(pending, pid)
			if !ok || !had || !strings.HasPrefix(head, name+"(") {
				continue
			}
			rest = head + tail
		} else if head, ok := strings.CutSuffix(rest, " <unfinished ...>"); ok {
			pending[pid] = head
			continue
		}
		if c, ok := parseCall(rest); ok {
			c.line, c.pid = n, pid
			out = append(out, c)
		}
	}
	return out
}

// parseCall splits `name(arg, arg) = ret` at the top level: quotes,
// brackets and descriptor paths (3</a/b>) are skipped whole.
func parseCall(s string) (call, bool) {
	open := strings.IndexByte(s, '(')
	if open <= 0 {
		return call{}, false
	}
	c := call{name: s[:open]}
	depth, start := 0, open+1
	for i := open + 1; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '"':
			i = skipQuoted(s, i+1, '"')
		case '<':
			if i > 0 && (isDigit(s[i-1]) || strings.HasSuffix(s[:i], "AT_FDCWD")) {
				i = skipQuoted(s, i+1, '>')
			}
		case '{', '[', '(':
			depth++
		case '}', ']':
			depth--
		case ')':
			if depth > 0 {
				depth--
				continue
			}
			c.args = append(c.args, strings.TrimSpace(s[start:i]))
			ret, ok := strings.CutPrefix(s[i+1:], " = ")
			if !ok {
				return call{}, false
			}
			c.ret = ret
			return c, true
		case ',':
			if depth == 0 {
				c.args = append(c.args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return call{}, false
}

// skipQuoted is the index of the unescaped end byte from i on.
func skipQuoted(s string, i int, end byte) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case end:
			return i
		}
	}
	return len(s)
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// unquote decodes strace's C-style string: \" \\ \n \t \xHH \ooo. ok is
// false for a string strace cut short ("..." after the quote).
func unquote(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' {
		return "", false
	}
	end := skipQuoted(s, 1, '"')
	if end >= len(s) || strings.TrimSpace(s[end+1:]) != "" {
		return "", false
	}
	return unescape(s[1:end]), true
}

// unescape decodes the escapes of a quoted string or a descriptor path.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch ch := s[i]; {
		case ch == 'x' && i+2 < len(s):
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
			b.WriteByte(ch)
		case ch >= '0' && ch <= '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			if j := strings.IndexByte("ntrvfab", ch); j >= 0 {
				ch = "\n\t\r\v\f\a\b"[j]
			}
			b.WriteByte(ch) // \" and \\ quote themselves
		}
	}
	return b.String()
}

// fdPath is the path strace printed for a descriptor argument, 3</a/b> or
// AT_FDCWD</a>, or 3</a/b>(deleted) for a file unlinked while open: the
// path it had is the one the client reached it by. ok is false when it
// printed none.
func fdPath(arg string) (string, bool) {
	arg = strings.TrimSuffix(arg, "(deleted)")
	i := strings.IndexByte(arg, '<')
	if i < 0 || !strings.HasSuffix(arg, ">") {
		return "", false
	}
	p := unescape(arg[i+1 : len(arg)-1])
	return p, strings.HasPrefix(p, "/")
}

// retOK reports whether a call returned success: 0 or more.
func retOK(ret string) bool {
	n := ret
	if i := strings.IndexAny(ret, " <"); i >= 0 {
		n = ret[:i]
	}
	v, err := strconv.ParseInt(n, 0, 64)
	return err == nil && v >= 0
}

// traceReads are the accesses the trace holds, each with the program its
// process ran then. A thread or a child not yet exec'd runs its parent's
// program: the clone that made it says whose it is.
func traceReads(r io.Reader) []access {
	calls := parseCalls(r)
	parent := map[int]int{}
	for _, c := range calls {
		if isClone(c.name) && retOK(c.ret) {
			if child, err := strconv.Atoi(strings.Fields(c.ret)[0]); err == nil && child > 0 {
				parent[child] = c.pid
			}
		}
	}
	prog := map[int]string{}
	progOf := func(pid int) string {
		for range 64 {
			if p, ok := prog[pid]; ok {
				return p
			}
			pp, ok := parent[pid]
			if !ok {
				return ""
			}
			pid = pp
		}
		return ""
	}
	var out []access
	for _, c := range calls {
		if isClone(c.name) && retOK(c.ret) {
			// The child runs what its parent runs now, until it execs.
			if child, err := strconv.Atoi(strings.Fields(c.ret)[0]); err == nil {
				if _, ok := prog[child]; !ok {
					prog[child] = progOf(c.pid)
				}
			}
			continue
		}
		a, ok := readOf(c)
		if !ok {
			continue
		}
		a.Prog = progOf(c.pid)
		out = append(out, a)
		if c.name == "execve" && a.Path != "" {
			prog[c.pid] = a.Path
		}
	}
	return out
}

func isClone(name string) bool {
	return name == "clone" || name == "clone3" || name == "fork" || name == "vfork"
}

// readOf is the access c made, when it read something and succeeded.
func readOf(c call) (access, bool) {
	a := access{Pid: c.pid, Call: c.name}
	if !retOK(c.ret) {
		return a, false
	}
	var dirfd, name string
	switch c.name {
	case "openat", "openat2":
		if len(c.args) < 3 || !openReads(c.name, c.args[2]) {
			return a, false
		}
		switch {
		case strings.Contains(c.args[2], "O_PATH"):
			a.Call = pathOpen // a handle, no bytes ("dir:" noise)
		case strings.Contains(c.args[2], "O_DIRECTORY"):
			a.Call = dirOpen // a listing, no file's bytes ("dir:" noise)
		}
		dirfd, name = c.args[0], c.args[1]
	case "statx", "newfstatat", "readlinkat":
		if len(c.args) < 2 {
			return a, false
		}
		dirfd, name = c.args[0], c.args[1]
	case "readlink", "execve":
		if len(c.args) < 1 {
			return a, false
		}
		name = c.args[0]
	default:
		return a, false
	}
	p, ok := unquote(name)
	switch {
	case !ok:
		a.Unknown = "the path strace printed cannot be read: " + name
	case strings.HasPrefix(p, "/"):
		a.Path = path.Clean(p)
	case dirfd == "":
		a.Unknown = "a relative path and no directory: " + name
	default:
		base, ok := fdPath(dirfd)
		switch {
		case !ok:
			a.Unknown = "a relative path against a directory strace did not name: " + dirfd + " " + name
		case p == "":
			a.Path = path.Clean(base) // fstat of the descriptor (AT_EMPTY_PATH)
		default:
			a.Path = path.Join(base, p)
		}
	}
	return a, true
}

// dirOpen and pathOpen name an open of a directory (O_DIRECTORY) and an
// open for a handle alone (O_PATH) among a path's calls.
const (
	dirOpen  = "openat(O_DIRECTORY)"
	pathOpen = "openat(O_PATH)"
)

// openReads reports whether an open's flags read the file: not for
// writing only, and not creating it. O_PATH counts, as a stat does.
func openReads(name, flags string) bool {
	if name == "openat2" {
		i := strings.Index(flags, "flags=")
		if i < 0 {
			return false
		}
		flags = flags[i+len("flags="):]
		if j := strings.IndexAny(flags, ", }"); j >= 0 {
			flags = flags[:j]
		}
	}
	for _, f := range strings.Split(flags, "|") {
		if f == "O_WRONLY" || f == "O_CREAT" || f == "O_TMPFILE" {
			return false
		}
	}
	return true
}
