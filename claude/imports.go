package claude

import (
	"path"
	"strings"

	"github.com/skillwire/skillwire/claude/jstext"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/walker"
)

// maxImportPaths bounds the paths read from one instruction file. The
// client has no such bound, so a cut list must always end in the walker's
// Fanout. The bound is more than the walker binds (walker.MaxScripts) plus
// every path it can have seen before (MaxScripts more). So at least
// MaxScripts+1 of them are new.
const maxImportPaths = 2*walker.MaxScripts + 1

// importPaths resolves the imports of an instruction file of directory
// dir. A relative path is under the importing file's dir. ~/ is under home
// and unbound without one. An absolute path is as written. The client
// reads a path by its text, with Node's path.resolve: "nowhere/../x.md" is
// dir/x.md whether or not nowhere exists. The kernel may reach another
// file through the same spelling, by a link before the "..". Both are
// bound where they differ, each opened by the walker with its proofs. So
// what the client reads is never left out.
func importPaths(dir, home string, data []byte) []string {
	var out []string
	for _, p := range jstext.Imports(data, maxImportPaths) {
		switch {
		case strings.HasPrefix(p, "/"):
		case strings.HasPrefix(p, "~/"):
			if home == "" {
				continue
			}
			p = pathname.Join(home, p[2:])
		default:
			p = pathname.Join(dir, strings.TrimPrefix(p, "./"))
		}
		if lex := lexical(p); lex != p {
			out = append(out, lex)
		}
		if out = append(out, p); len(out) >= maxImportPaths {
			break
		}
	}
	return out
}

// lexical is p read by its text, as path.resolve reads it. A relative p
// keeps its "./", since a lock's root is the repository's "./". So the
// same file is spelled the same wherever both readings agree.
func lexical(p string) string {
	c := path.Clean(p)
	if strings.HasPrefix(p, "./") && c != "." {
		return "./" + c
	}
	return c
}
