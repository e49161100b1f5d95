package gitignore

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/skillwire/skillwire/internal/safefile"
)

// MaxFile bounds one ignore file. Each pattern is tried for every folder
// asked, so a huge file would cost every hook; one larger is not read.
const MaxFile = 256 << 10

// errUnreadable: an ignore file that exists but was not read whole.
var errUnreadable = errors.New("gitignore: ignore file not read")

// rule is one pattern as go-git matches it. Bytewise: git matches it byte
// by byte where go-git matches runes (?, a class, invalid UTF-8), so on a
// name with a non-ASCII byte the two may differ.
type rule struct {
	gitignore.Pattern
	bytewise bool
}

// readPatterns parses the ignore file at path, its patterns scoped to the
// folder domain. A missing file has none. Any other failure is an error:
// a link, a file over MaxFile, a NUL byte, a negation go-git cannot read
// as git does. Git 2.32 and later skip a linked .gitignore, older ones
// follow it: either may be the client's.
func readPatterns(path string, domain []string) ([]rule, error) {
	b, _, err := safefile.Read(path, MaxFile, safefile.Trust{})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, errUnreadable
	case bytes.IndexByte(b, 0) >= 0:
		// Git reads a pattern up to a NUL: what follows on that line is
		// not what go-git would match.
		return nil, errUnreadable
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // git skips a UTF-8 BOM
	var rules []rule
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		line = trimSpaces(line)
		p, ok := forGoGit(line)
		switch {
		case ok:
			rules = append(rules, rule{gitignore.ParsePattern(p, domain), bytewise(p)})
		case line[0] == '!':
			return nil, errUnreadable // a negation dropped would ignore more
		}
	}
	return rules, nil
}

// forGoGit rewrites a git pattern into one go-git v5.19.3 matches as git
// does, or reports that it cannot. The corpus test pins each difference:
//   - "[!a]" is git's negated class; go-git (filepath.Match) reads "[^a]".
//   - "a**b" is git's "a*b"; go-git matches no path with it.
//   - "a/**" matches what is inside a, not a itself; go-git matches a too.
//     "a/*" is the same for a walk that tests each folder above first.
//   - POSIX classes ("[:digit:]") and a class opening with "]" go-git
//     cannot read at all.
func forGoGit(line string) (string, bool) {
	if strings.Contains(line, "[:") || strings.Contains(line, "[]") ||
		strings.Contains(line, "[!]") || strings.Contains(line, "[^]") {
		return "", false
	}
	var b strings.Builder
	if rest, ok := strings.CutPrefix(line, "!"); ok {
		b.WriteByte('!') // not part of the first name: "!**/x" keeps its "**"
		line = rest
	}
	parts := strings.Split(line, "/")
	for i, c := range parts {
		if i > 0 {
			b.WriteByte('/')
		}
		last := i == len(parts)-1 || i == len(parts)-2 && parts[i+1] == ""
		if c == "**" && last && i > 0 {
			c = "*"
		}
		if c != "**" {
			c = oneStar(c)
		}
		b.WriteString(c)
	}
	return b.String(), true
}

// oneStar collapses runs of unescaped stars and turns "[!" into "[^".
func oneStar(c string) string {
	var b strings.Builder
	star := false // the byte written last is an unescaped star
	for i := 0; i < len(c); i++ {
		switch {
		case c[i] == '*':
			if !star {
				b.WriteByte('*')
			}
			star = true
			continue
		case c[i] == '\\' && i+1 < len(c):
			b.WriteString(c[i : i+2])
			i++
		case c[i] == '[' && i+1 < len(c) && c[i+1] == '!':
			b.WriteString("[^")
			i++
		default:
			b.WriteByte(c[i])
		}
		star = false
	}
	return b.String()
}

func bytewise(p string) bool {
	return strings.ContainsAny(p, "?[") || !utf8.ValidString(p)
}

// trimSpaces drops trailing spaces as git does: a backslash keeps the one
// after it. go-git keeps a line ending in "\ " whole, so this must run first.
func trimSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		i := end - 1
		n := 0
		for i > 0 && s[i-1] == '\\' {
			i--
			n++
		}
		if n%2 == 1 {
			break
		}
		end--
	}
	return s[:end]
}
