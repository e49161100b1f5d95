package findings

import (
	"bytes"
	"iter"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// lineRules are the line rules' expressions. They are compiled at first
// use (rules): every hook links this package, few read content.
type lineRules struct {
	// Fetch-and-run forms. Prose around them need not parse as shell, so
	// they are matched per line rather than parsed. Every expression here
	// is matched against the line in lower case.
	pipeToShell                   []*regexp.Regexp
	url, scp, follow, from, fetch *regexp.Regexp
}

var rules = sync.OnceValue(func() *lineRules {
	return &lineRules{
		pipeToShell: []*regexp.Regexp{
			// curl … | sh, wget -qO- … | sudo bash, … | python3
			regexp.MustCompile(`\b(curl|wget|fetch|http)\b[^|\n]*\|\s*(sudo\s+(-\S+\s+)*)?(env\s+)?((ba|z|k|da|fi|a)?sh|python[0-9.]*|perl|ruby|node)\b`),
			// bash <(curl …), source <(wget …)
			regexp.MustCompile(`\b((ba|z|k)?sh|source|\.)\s+<\(\s*(curl|wget)\b`),
			// sh -c "$(curl …)"
			regexp.MustCompile(`\b(ba|z|k)?sh\s+-c\s+["']?\$\(\s*(curl|wget)\b`),
			// iwr … | iex, irm … | Invoke-Expression
			regexp.MustCompile(`\b(iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget)\b[^|\n]*\|\s*(iex|invoke-expression)\b`),
			// iex (iwr …), iex ((New-Object Net.WebClient).DownloadString(…))
			regexp.MustCompile(`\b(iex|invoke-expression)\s*[(\s]+\s*(iwr|irm|invoke-webrequest|invoke-restmethod|\(?\s*new-object\s+(system\.)?net\.webclient)`),
		},
		url: regexp.MustCompile(`\b(?:https?|wss?|ftp|git|ssh|sftp)://([^\s/?#"'<>()\[\]{}\x60\\]+)`),
		// git@github.com:owner/repo
		scp: regexp.MustCompile(`\b[A-Za-z0-9._-]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):[A-Za-z0-9._~/-]`),
		// "fetch URL and follow the instructions", "load your instructions
		// from URL", "do what the page says".
		follow: regexp.MustCompile(`\b(follow|obey|execute|apply|comply with|carry out|adopt|do)\b[^.!?]{0,80}\b(instructions?|directions|steps|directives|commands|what (it|they|the \w+) says?)\b`),
		from:   regexp.MustCompile(`\b(instructions?|directions|directives|prompt|rules)\b[^.!?]{0,60}\b(at|from|in|on)\b[^.!?]{0,20}(https?://|<https?://)`),
		fetch:  regexp.MustCompile(`\b(fetch|read|download|load|retrieve|get|curl|wget|visit|open|go to|pull|webfetch)\b`),
	}
})

// scanLines matches the line rules: remote instructions and pipe to
// shell. Each line is cut to MaxLineBytes. Only a line holding one of
// lineMarks is matched: every rule needs one (pipe, substitution, URL,
// or the x of iex and invoke-expression, which only X lowers to). A line
// matched is lowered into one buffer the scan reuses.
func scanLines(c *collector, data []byte) {
	r := rules()
	var buf []byte
	for n, line := range markedLines(data, lineMarks[:]) {
		buf = scanLine(c, r, n, line, buf)
	}
}

// markedLines yields, with its 1-based number and cut to MaxLineBytes,
// each line of data that holds one of marks (before the cut or past it).
func markedLines(data []byte, marks []string) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		m := newMarker(data, marks)
		for pos, n := 0, 1; pos < len(data); n++ { // pos: where line n starts
			start, at := m.from(pos)
			if at == len(data) {
				return
			}
			n += bytes.Count(data[pos:start], []byte{'\n'})
			end := len(data)
			if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
				end = at + i
			}
			line := data[start:end]
			if !yield(n, line[:min(len(line), MaxLineBytes)]) {
				return
			}
			pos = end + 1
		}
	}
}

// marker finds the lines of data that hold one of marks. Each mark is
// searched for in the whole of data once past the last, so a megabyte of
// short lines without them is a few searches, not a call per line.
type marker struct {
	data  []byte
	marks []string
	next  []int // each mark's next offset at or past the last pos asked, len(data) when none is left
}

func newMarker(data []byte, marks []string) *marker {
	m := &marker{data: data, marks: marks, next: make([]int, len(marks))}
	for k := range m.next {
		m.next[k] = -1
	}
	return m
}

// from is the first mark at or past pos (at, len(data) when there is none)
// and the start of its line, never before pos.
func (m *marker) from(pos int) (start, at int) {
	at = len(m.data)
	for k, mark := range m.marks {
		if m.next[k] < pos {
			m.next[k] = len(m.data)
			if i := bytes.Index(m.data[pos:], []byte(mark)); i >= 0 {
				m.next[k] = pos + i
			}
		}
		at = min(at, m.next[k])
	}
	return pos + bytes.LastIndexByte(m.data[pos:at], '\n') + 1, at
}

// lineMarks: a line holds one of them or no line rule matches it.
var lineMarks = [...]string{"|", "<(", "$(", "://", "x", "X"}

// scanLine matches the line rules on line n, lowered over buf, which it
// returns to be reused.
func scanLine(c *collector, r *lineRules, n int, line, buf []byte) []byte {
	low := lowerInto(buf[:0], line)
	if mayPipe(line, low) {
		for _, re := range r.pipeToShell {
			if re.Match(low) {
				if c.at(PipeToShell) {
					c.add(PipeToShell, n, string(line), "")
				}
				break
			}
		}
	}
	if bytes.Contains(line, []byte("://")) && r.url.Match(low) && r.fetch.Match(low) && (r.follow.Match(low) || r.from.Match(low)) {
		if c.at(RemoteInstructions) {
			c.add(RemoteInstructions, n, string(line), "")
		}
	}
	return low
}

// mayPipe: the line holds what every pipeToShell form needs, a pipe, a
// process or command substitution, or PowerShell's iex (in low, the line
// in lower case). It spares the regular expressions most lines.
func mayPipe(line, low []byte) bool {
	return bytes.IndexByte(line, '|') >= 0 || bytes.Contains(line, []byte("<(")) || bytes.Contains(line, []byte("$(")) ||
		bytes.Contains(low, []byte("iex")) || bytes.Contains(low, []byte("invoke-expression"))
}

// lowerInto is line in lower case as strings.ToLower makes it, written
// over buf when line is ASCII. Any other line is lowered by bytes.ToLower,
// rune by rune: 'İ' lowers to 'i', and bytes that are not UTF-8 to U+FFFD.
func lowerInto(buf, line []byte) []byte {
	for _, b := range line {
		if b >= utf8.RuneSelf {
			return bytes.ToLower(line)
		}
	}
	for _, b := range line {
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		buf = append(buf, b)
	}
	return buf
}

// lines yields each line with its 1-based number, cut to MaxLineBytes.
func lines(data []byte) func(func(int, []byte) bool) {
	return func(yield func(int, []byte) bool) {
		for n := 1; len(data) > 0; n++ {
			line := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				line, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			if !yield(n, line[:min(len(line), MaxLineBytes)]) {
				return
			}
		}
	}
}

// Hosts are the network hosts the data names, each with the first line
// that names it. Loopback is no network host.
func Hosts(data []byte) map[string]int {
	out, r := map[string]int{}, rules()
	if len(data) > MaxFileBytes {
		data = data[:MaxFileBytes]
	}
	for n, line := range markedLines(data, hostMarks[:]) {
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

// hostMarks: a line names a host by URL or scp-like address only if it
// holds one of them.
var hostMarks = [...]string{"://", "@"}

// hostOf is the host of an authority: no user, no port, lower case.
func hostOf(auth string) string {
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	if strings.HasPrefix(auth, "[") {
		if i := strings.IndexByte(auth, ']'); i > 0 {
			auth = auth[1:i]
		}
	} else if i := strings.LastIndexByte(auth, ':'); i >= 0 {
		auth = auth[:i]
	}
	h := strings.TrimSuffix(strings.ToLower(auth), ".")
	switch h {
	case "localhost", "127.0.0.1", "::1", "0.0.0.0":
		return ""
	}
	return h
}

// scanComments reports each HTML comment of Markdown outside a fenced
// code block: the model reads it, a rendered view hides it. Only the
// lines holding a comment's opening or a fence's (commentMarks) can
// change either, so the lines between are passed over.
func scanComments(c *collector, data []byte) {
	fence := ""
	line := 1
	mid := false // off is inside a line, past a comment
	m := newMarker(data, commentMarks[:])
	for off := 0; off < len(data); {
		if !mid {
			start, at := m.from(off)
			if at == len(data) {
				return
			}
			line += bytes.Count(data[off:start], []byte{'\n'})
			off = start
		}
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

// commentMarks: a line opens a comment or a fence only if it holds one.
var commentMarks = [...]string{"<!--", "```", "~~~"}

// fenced is the fence open after line, given the one open before it.
func fenced(open string, line []byte) string {
	t := bytes.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return open
	}
	for _, f := range []string{"```", "~~~"} {
		if bytes.HasPrefix(t, []byte(f)) {
			if open == "" {
				return f
			}
			if open == f {
				return ""
			}
		}
	}
	return open
}
