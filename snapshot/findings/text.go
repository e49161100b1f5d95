package findings

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
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
// shell. Each line is cut to MaxLineBytes.
func scanLines(c *collector, data []byte) {
	r := rules()
	for n, line := range lines(data) {
		s := string(line)
		low := strings.ToLower(s)
		for _, re := range r.pipeToShell {
			if mayPipe(line) && re.MatchString(low) {
				if c.at(PipeToShell) {
					c.add(PipeToShell, n, s, "")
				}
				break
			}
		}
		if bytes.Contains(line, []byte("://")) && r.url.MatchString(low) && r.fetch.MatchString(low) && (r.follow.MatchString(low) || r.from.MatchString(low)) {
			if c.at(RemoteInstructions) {
				c.add(RemoteInstructions, n, s, "")
			}
		}
	}
}

// mayPipe: the line holds what every pipeToShell form needs, a pipe, a
// process or command substitution, or PowerShell's iex. It spares the
// regular expressions most lines.
func mayPipe(line []byte) bool {
	if bytes.IndexByte(line, '|') >= 0 || bytes.Contains(line, []byte("<(")) || bytes.Contains(line, []byte("$(")) {
		return true
	}
	l := bytes.ToLower(line)
	return bytes.Contains(l, []byte("iex")) || bytes.Contains(l, []byte("invoke-expression"))
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
// code block: the model reads it, a rendered view hides it.
func scanComments(c *collector, data []byte) {
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
