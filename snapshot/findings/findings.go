// Package findings reads a candidate's files for what deserves a
// reviewer's look. A finding is a fact, never a verdict. Each names its
// kind, the file and line, and the text shown escaped. The input is
// hostile: every file, line and count is bounded.
package findings

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/skillwire/skillwire/anomaly"
)

// Kinds of finding. Each is also a SARIF rule id, prefixed "finding/".
const (
	InvisibleUnicode   = "invisible-unicode"
	Bidi               = "bidi"
	HTMLComment        = "html-comment"
	RemoteInstructions = "remote-instructions"
	PipeToShell        = "pipe-to-shell"
	EncodedBlob        = "encoded-blob"
	NewHost            = "new-host"
	ToolsWidened       = "tools-widened"
	NewExecutable      = "new-executable"
	// Unscanned: part of a file was not read. Unknown is a finding too.
	Unscanned = "unscanned"
)

// Kinds lists every kind, in the order a reviewer reads them.
var Kinds = []string{InvisibleUnicode, Bidi, HTMLComment, RemoteInstructions, PipeToShell,
	EncodedBlob, NewHost, ToolsWidened, NewExecutable, Unscanned}

// Bounds on hostile input.
const (
	// MaxFileBytes of a file are scanned. The rest is told as unscanned.
	MaxFileBytes = 1 << 20
	// MaxLineBytes of a line are matched by the text rules. The Unicode
	// rules read every byte scanned.
	MaxLineBytes = 8 << 10
	// MaxPerKind findings of one kind are listed per file; one more says
	// how many were left out.
	MaxPerKind = 20
	// MaxFiles of a candidate are scanned.
	MaxFiles = 4096
	// shown is how many characters of escaped text a finding shows.
	shown = 160
	// blobRun is the encoded run past which a blob is told.
	blobRun = 512
)

// Finding is one fact for the reviewer.
type Finding struct {
	Kind string `json:"kind"`
	// File is the path in the candidate, escaped. Line counts from 1; 0
	// is the file as a whole.
	File string `json:"file"`
	Line int    `json:"line"`
	// Text is what was found, escaped and quoted (anomaly.Quote).
	Text string `json:"text"`
	// Decoded is what hidden tag characters spell, escaped and quoted.
	Decoded string `json:"decoded,omitempty"`
}

// String is the finding on one line, every attacker byte escaped.
func (f Finding) String() string {
	s := fmt.Sprintf("%s %s %s", f.Kind, f.File, f.Text)
	if f.Line > 0 {
		s = fmt.Sprintf("%s %s:%d %s", f.Kind, f.File, f.Line, f.Text)
	}
	if f.Decoded != "" {
		s += " decodes to " + f.Decoded
	}
	return s
}

// File is one file of a candidate.
type File struct {
	Path []byte
	Data []byte
	// Exec: the file's mode lets it run.
	Exec bool
	// Unread: its content could not be had (too large to keep, say). It is
	// told as unscanned, never passed over in silence.
	Unread bool
}

// Scan reports what one file's content holds. Findings are in line order
// within each kind, kinds in Kinds order.
func Scan(f File) []Finding {
	name := anomaly.Escape(f.Path)
	data := f.Data
	var out []Finding
	if f.Unread {
		return []Finding{{Kind: Unscanned, File: name, Text: `"its content was not read"`}}
	}
	if len(data) > MaxFileBytes {
		out = append(out, Finding{Kind: Unscanned, File: name,
			Text: fmt.Sprintf("%q", fmt.Sprintf("only the first %d of %d bytes were scanned", MaxFileBytes, len(data)))})
		data = data[:MaxFileBytes]
	}
	c := collector{file: name}
	scanUnicode(&c, data)
	if isMarkdown(f.Path) {
		scanComments(&c, data)
	}
	scanLines(&c, data)
	scanBlobs(&c, data)
	return append(c.sorted(), out...)
}

// collector gathers findings of one file, MaxPerKind of each kind.
type collector struct {
	file  string
	found []Finding
	count map[string]int
}

// at counts one finding of kind and reports whether it is to be listed.
func (c *collector) at(kind string) bool {
	if c.count == nil {
		c.count = map[string]int{}
	}
	c.count[kind]++
	return c.count[kind] <= MaxPerKind
}

// add lists a finding counted by at.
func (c *collector) add(kind string, line int, text string, decoded string) {
	f := Finding{Kind: kind, File: c.file, Line: line, Text: anomaly.Quote(text, shown)}
	if decoded != "" {
		f.Decoded = anomaly.Quote(decoded, shown)
	}
	c.found = append(c.found, f)
}

// sorted are the findings by kind, then line, with a line for each kind
// cut at MaxPerKind.
func (c *collector) sorted() []Finding {
	out := c.found
	for _, k := range Kinds {
		if n := c.count[k]; n > MaxPerKind {
			out = append(out, Finding{Kind: k, File: c.file, Text: fmt.Sprintf("%q", fmt.Sprintf("%d more in this file", n-MaxPerKind))})
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		if d := slices.Index(Kinds, a.Kind) - slices.Index(Kinds, b.Kind); d != 0 {
			return d
		}
		if a.Line == 0 || b.Line == 0 {
			return b.Line - a.Line // the count closes its kind
		}
		return a.Line - b.Line
	})
	return out
}

func isMarkdown(p []byte) bool {
	l := bytes.ToLower(p)
	return bytes.HasSuffix(l, []byte(".md")) || bytes.HasSuffix(l, []byte(".mdx")) || bytes.HasSuffix(l, []byte(".markdown"))
}

// lineOf is the line holding offset i, cut to MaxLineBytes around it.
func lineOf(data []byte, i int) string {
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	end := bytes.IndexByte(data[i:], '\n')
	if end < 0 {
		end = len(data)
	} else {
		end += i
	}
	start = max(start, i-MaxLineBytes/2)
	end = min(end, i+MaxLineBytes/2)
	return string(data[start:end])
}
