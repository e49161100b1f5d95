package claude

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/walker"
)

// maxImportPaths bounds the paths read from one instruction file. The
// client has no such bound, so a cut list must always end in the walker's
// Fanout. The bound is more than the walker binds (walker.MaxScripts) plus
// every path it can have seen before (MaxScripts more). So at least
// MaxScripts+1 of them are new.
const maxImportPaths = 2*walker.MaxScripts + 1

// Imports lists the @path imports of an instruction file as written: in
// order, without duplicates, "\ " unescaped and a #fragment cut. It lists
// at most maxImportPaths of them.
//
// Claude Code 2.1.328 lexes the file with marked. In each text token it
// matches `(?:^|\s)@((?:[^\s\\]|\\ )+)`, with JavaScript's \s. It skips
// code, code spans and closed HTML comments. skillwire reads a superset
// and never skips text the client might read.
//   - Code and comments are read too: binding a path never imported costs
//     nothing.
//   - An @ counts after white space, at the start, or after ASCII
//     punctuation. There one of marked's tokens may end and a text token
//     start: `|@x.md|` in a table, `\*@x.md` after an escape, `<b>@x.md`.
//   - A path is read whole and also cut where a token may end inside it
//     (tokenCuts).
//
// An @ after a letter or digit (mail@example.com) is none: marked never
// ends a token there.
func Imports(data []byte) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(data); i++ {
		if data[i] != '@' || !importStart(data[:i]) {
			continue
		}
		p := importPath(data[i+1:])
		if j := strings.IndexByte(p, '#'); j >= 0 {
			p = p[:j]
		}
		for _, p := range tokenCuts(p) {
			p = strings.ReplaceAll(p, `\ `, " ")
			if !importable(p) || seen[p] {
				continue
			}
			seen[p] = true
			if out = append(out, p); len(out) == maxImportPaths {
				return out
			}
		}
	}
	return out
}

// tokenCutChars are where marked may end, mid-path, the text token an
// import is read from. They come before emphasis, strikethrough, a code
// span, inline HTML, a link or image, or a table cell's end.
const tokenCutChars = "<![]`*~_|"

// tokenCuts are p and each prefix of it that ends before a run of
// tokenCutChars, longest last. `|@x.md|` is x.md to the client.
func tokenCuts(p string) []string {
	var out []string
	for i := 1; i < len(p); i++ {
		if strings.IndexByte(tokenCutChars, p[i]) >= 0 && strings.IndexByte(tokenCutChars, p[i-1]) < 0 {
			out = append(out, p[:i])
		}
	}
	return append(out, p)
}

// importStart reports whether an @ after before may begin an import.
func importStart(before []byte) bool {
	if len(before) == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRune(before)
	return jsSpace(r) || r < utf8.RuneSelf && isASCIIPunct(byte(r))
}

// importPath is the path an @ is followed by. It runs over runes that are
// neither JavaScript white space nor a backslash, and over a backslash and
// a space. jsSpace is the set trim removes: a no-break space ends a path
// for the client as a blank does.
func importPath(b []byte) string {
	n := 0
	for n < len(b) {
		if b[n] == '\\' {
			if n+1 < len(b) && b[n+1] == ' ' {
				n += 2
				continue
			}
			break
		}
		r, size := utf8.DecodeRune(b[n:])
		if jsSpace(r) {
			break
		}
		n += size
	}
	return string(b[:n])
}

func isASCIIPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
}

// importable is the client's test of a path. It is "./", "~/" or "/"
// followed by more, or a first character of [A-Za-z0-9._-].
func importable(p string) bool {
	if p == "" || p == "/" || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	c := p[0]
	return c == '/' || c == '~' && strings.HasPrefix(p, "~/") ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

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
	for _, p := range Imports(data) {
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
