package findings

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillwire/skillwire/anomaly"
)

// The scanners as they were at f4a9c03, before scanUnicode skipped ASCII
// eight bytes at a time, scanBlobs classed bytes by table, and Hosts and
// scanComments read only the lines holding a mark: the oracles of the
// ones that replaced them.

func scanBefore(f File) []Finding {
	data := f.Data
	if f.Unread || len(data) > MaxFileBytes {
		return Scan(f) // not what these oracles are for
	}
	c := collector{file: anomaly.Escape(f.Path)}
	scanUnicodeBefore(&c, data)
	if isMarkdown(f.Path) {
		scanCommentsBefore(&c, data)
	}
	scanLinesBefore(&c, data)
	scanBlobsBefore(&c, data)
	return c.sorted()
}

func scanUnicodeBefore(c *collector, data []byte) {
	line := 1
	for i := 0; i < len(data); {
		b := data[i]
		if b == '\n' {
			line++
		}
		if b < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r >= tagFirst && r <= tagLast:
			start := i
			var spelled strings.Builder
			for i < len(data) {
				r, size := utf8.DecodeRune(data[i:])
				if r < tagFirst || r > tagLast {
					break
				}
				if r-tagFirst >= 0x20 && r-tagFirst < 0x7F && spelled.Len() < MaxLineBytes {
					spelled.WriteByte(byte(r - tagFirst))
				}
				i += size
			}
			if c.at(InvisibleUnicode) {
				c.add(InvisibleUnicode, line, lineOf(data, start), spelled.String())
			}
			continue
		case isZeroWidth(r) && !(r == 0xFEFF && i == 0):
			if c.at(InvisibleUnicode) {
				c.add(InvisibleUnicode, line, lineOf(data, i), "")
			}
		case isBidi(r):
			if c.at(Bidi) {
				c.add(Bidi, line, lineOf(data, i), "")
			}
		}
		i += size
	}
}

func isB64Before(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '=' || b == '-' || b == '_'
}

func isHexBefore(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

func scanBlobsBefore(c *collector, data []byte) {
	wholeLine := func(data []byte) bool {
		k := 0
		for k < len(data) && isB64Before(data[k]) {
			k++
		}
		return k > 0 && (k == len(data) || data[k] == '\n' || data[k] == '\r')
	}
	line := 1
	for i := 0; i < len(data); {
		if !isB64Before(data[i]) {
			if data[i] == '\n' {
				line++
			}
			i++
			continue
		}
		start, startLine := i, line
		n, seg, hex := 0, 0, true
		for i < len(data) {
			b := data[i]
			if isB64Before(b) {
				n, seg = n+1, seg+1
				hex = hex && isHexBefore(b)
				i++
				continue
			}
			j := i
			if b == '\r' && j+1 < len(data) {
				j++
			}
			if data[j] == '\n' && seg >= 60 && wholeLine(data[j+1:]) {
				line++
				seg = 0
				i = j + 1
				continue
			}
			break
		}
		if n > blobRun && c.at(EncodedBlob) {
			what := "base64"
			if hex {
				what = "hex"
			}
			head := data[start:min(i, start+48)]
			c.add(EncodedBlob, startLine, fmt.Sprintf("%d characters of %s: %s", n, what, head), "")
		}
	}
}

func hostsBefore(data []byte) map[string]int {
	out, r := map[string]int{}, rules()
	if len(data) > MaxFileBytes {
		data = data[:MaxFileBytes]
	}
	for n, line := range lines(data) {
		url, scp := bytes.Contains(line, []byte("://")), bytes.IndexByte(line, '@') >= 0
		if !url && !scp {
			continue
		}
		low := bytes.ToLower(line)
		for _, re := range []*regexp.Regexp{r.url, r.scp} {
			if re == r.scp && !scp {
				continue
			}
			for _, m := range re.FindAllSubmatch(low, MaxPerKind) {
				h := hostOf(string(m[1]))
				if _, seen := out[h]; h != "" && !seen {
					out[h] = n
				}
			}
		}
	}
	return out
}

var scanSeeds = append([]string{
	"plain\n",
	"a\u200bb\n\u202e evil\n\uFEFFbom not first\n",
	"\uFEFF" + tags("hidden") + "\n" + tags("more"),
	"\xf3\xa0\x81\x81 cut tag\n\xe2\x80",
	strings.Repeat("é", 7) + "\u200b" + strings.Repeat("abcdefg\n", 3) + "\u2066", // non-ASCII at every offset mod 8
	strings.Repeat("QUJD", 200) + "\n",
	strings.Repeat("0123456789abcdef", 40) + "\n",
	strings.Repeat("0123456789abcdefg", 40) + "\n",                   // base64, not hex
	strings.Repeat("ab_-", 200) + "\n",                               // URL-safe base64
	strings.Repeat(strings.Repeat("QUJD", 19)+"\r\n", 12) + "QUJD\n", // a wrapped blob over CRLF lines
	strings.Repeat("Zm9v", 130) + "\x80" + strings.Repeat("Zm9v", 130),
	"clone git@github.com:o/r.git and https://user@Host.Example:8443/p\n",
	"mail me@x at http://localhost:1 or ssh://[::1]:22/ or ftp://[2001:db8::1]/\n",
	strings.Repeat("- a\n", 50) + "see https://far.example\n" + strings.Repeat("x@y ", 1000) + "git@late.example:o/r\n",
	strings.Repeat("h", MaxLineBytes) + " https://past.example\n", // the mark past the cut
	"<!-- a\n```\n-->\n```\n<!-- b -->\n~~~\n<!-- in fence -->\n~~~\n",
	strings.Repeat("- a\n", 30) + "   ```go\nx <!-- in code -->\n    ```\n```\n" + strings.Repeat("b\n", 9) + "<!-- c --> <!-- d\n``` -->```\n<!-- e", // fences indented, closed late; comments after comments, unclosed
	"~~~\n```\n<!-- held -->\n~~~\r\n<!-- told -->\r\n",
}, lineSeeds...)

// FuzzScanAnswersAsBefore: on any bytes, Scan of a Markdown file and of
// a script finds what the scanners before them found, and Hosts names
// the hosts hostsBefore named, each at the same line.
func FuzzScanAnswersAsBefore(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"SKILL.md", "run.sh"} {
			file := File{Path: []byte(name), Data: data}
			if now, before := Scan(file), scanBefore(file); !reflect.DeepEqual(now, before) {
				t.Fatalf("%s %q:\nnow    %+v\nbefore %+v", name, data, now, before)
			}
		}
		if now, before := Hosts(data), hostsBefore(data); !reflect.DeepEqual(now, before) {
			t.Fatalf("hosts of %q:\nnow    %v\nbefore %v", data, now, before)
		}
	})
}

// TestScanSeedsFindWhatTheyHold: the seeds the fuzz compares on are not
// empty of findings, so the comparison compares something: each kind of
// content finding and a host are found in them.
func TestScanSeedsFindWhatTheyHold(t *testing.T) {
	kinds, hosts := map[string]int{}, map[string]int{}
	for _, s := range scanSeeds {
		for _, x := range Scan(File{Path: []byte("SKILL.md"), Data: []byte(s)}) {
			kinds[x.Kind]++
		}
		for h, n := range Hosts([]byte(s)) {
			hosts[h] = n
		}
	}
	for _, k := range []string{InvisibleUnicode, Bidi, HTMLComment, RemoteInstructions, PipeToShell, EncodedBlob} {
		if kinds[k] == 0 {
			t.Errorf("no seed finds %s", k)
		}
	}
	want := map[string]int{"github.com": 1, "host.example": 1, "far.example": 51, "late.example": 52}
	for h, n := range want {
		if hosts[h] != n {
			t.Errorf("host %s at line %d, want %d (all: %v)", h, hosts[h], n, hosts)
		}
	}
	if _, ok := hosts["past.example"]; ok {
		t.Errorf("a host past the line cut was named: %v", hosts)
	}
}

// TestASCIIRunStopsAtEveryHighByte: whichever of a word's bytes is the
// first past ASCII, asciiRun stops there, never past it.
func TestASCIIRunStopsAtEveryHighByte(t *testing.T) {
	for n := range 25 {
		for at := range n + 1 {
			b := bytes.Repeat([]byte{'a'}, n)
			want := n
			if at < n {
				b[at], want = 0x80, at
			}
			if got := asciiRun(b); got != want {
				t.Errorf("asciiRun of %d bytes, the high one at %d: %d, want %d", n, at, got, want)
			}
		}
	}
}
func scanCommentsBefore(c *collector, data []byte) {
	fence := ""
	line := 1
	mid := false // off is inside a line, past a comment
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		if !mid {
			fence = fenced(fence, data[off:end])
		}
		mid = false
		if fence == "" {
			if i := bytes.Index(data[off:end], []byte("<!--")); i >= 0 {
				start := off + i
				stop := len(data)
				if j := bytes.Index(data[start+4:], []byte("-->")); j >= 0 {
					stop = start + 4 + j + 3
				}
				if c.at(HTMLComment) {
					c.add(HTMLComment, line, string(data[start:min(stop, start+MaxLineBytes)]), "")
				}
				// What a comment holds is not Markdown: go on past it.
				line += bytes.Count(data[start:stop], []byte{'\n'})
				off, mid = stop, true
				continue
			}
		}
		line++
		off = end + 1
	}
}
