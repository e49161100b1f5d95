package hookio

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Long enough never to fire on a reader that returns at once, even on a
// busy machine. The deadline is not what these properties are about.
const fuzzWait = time.Minute

func FuzzReadInput(f *testing.F) {
	f.Add([]byte(`{"session_id":"x","cwd":"/home/u/p","source":"startup","hook_event_name":"SessionStart"}`), "/p", "resume")
	f.Add([]byte(`{"cwd":"relative/../p","source":"clear"}`), "..", "compact")
	f.Add([]byte(`{"cwd":"/a","cwd":"/b","Source":1}`), "/\x1b[2J", "\xff")
	f.Add([]byte(`{"cwd":["/a"]}`), "", "")
	f.Add([]byte{}, "/ok", "startup")
	f.Add([]byte("\xef\xbb\xbf{\"cwd\":\"/a\"}"), "//", "\u202e")
	f.Fuzz(func(t *testing.T, data []byte, cwd, source string) {
		got := ReadInput(bytes.NewReader(data), fuzzWait)
		if want := decodeHook(data); got != want {
			t.Fatalf("read %+v, want %+v", got, want)
		}
		checkInput(t, got)

		// What Claude Code writes is read back as written, except a cwd
		// that is not absolute.
		b, err := json.Marshal(map[string]string{"cwd": cwd, "source": source, "hook_event_name": "SessionStart"})
		if err != nil {
			t.Fatal(err)
		}
		var sent Input
		if err := json.Unmarshal(b, &sent); err != nil {
			t.Fatal(err)
		}
		got = ReadInput(bytes.NewReader(b), fuzzWait)
		if got.Source != sent.Source || got.Cwd != sent.Cwd && (got.Cwd != "" || strings.HasPrefix(sent.Cwd, "/")) {
			t.Fatalf("sent %+v, read %+v", sent, got)
		}
		checkInput(t, got)
	})
}

// Input past MaxInput is cut there, whatever follows. The reading is
// the decoding of the first MaxInput bytes. This test is apart from the
// fuzz target, since a megabyte per input would starve it.
func TestInputIsCutAtMaxInput(t *testing.T) {
	obj := []byte(`{"cwd":"/p","source":"startup"}`)
	fill := func(n int, c byte) []byte { return bytes.Repeat([]byte{c}, n) }
	for _, tc := range []struct {
		name string
		in   []byte
		want Input
	}{
		{"object then spaces past the cap", append(bytes.Clone(obj), fill(2*MaxInput, ' ')...), Input{Cwd: "/p", Source: "startup"}},
		{"object then garbage past the cap", append(append(bytes.Clone(obj), fill(MaxInput-len(obj), ' ')...), "garbage"...), Input{Cwd: "/p", Source: "startup"}},
		{"object ending past the cap", append(fill(MaxInput, ' '), obj...), Input{}},
		{"string longer than the cap", []byte(`{"cwd":"/` + string(fill(MaxInput, 'a')) + `"}`), Input{}},
		{"object filling the cap exactly", []byte(`{"cwd":"/` + string(fill(MaxInput-11, 'a')) + `"}`), Input{Cwd: "/" + string(fill(MaxInput-11, 'a'))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ReadInput(bytes.NewReader(tc.in), fuzzWait)
			if got != tc.want {
				t.Fatalf("read cwd of %d bytes, source %q; want cwd of %d bytes, source %q", len(got.Cwd), got.Source, len(tc.want.Cwd), tc.want.Source)
			}
			checkInput(t, got)
		})
	}
}

// decodeHook is the specification of ReadInput on a reader that ends
// in time. It is the JSON object, or nothing at all.
func decodeHook(b []byte) Input {
	var in Input
	if json.Unmarshal(b, &in) != nil {
		return Input{}
	}
	if !strings.HasPrefix(in.Cwd, "/") {
		in.Cwd = ""
	}
	return in
}

func checkInput(t *testing.T, in Input) {
	t.Helper()
	if in.Cwd != "" && in.Cwd[0] != '/' {
		t.Fatalf("relative cwd %q kept", in.Cwd)
	}
	if len(in.Cwd)+len(in.Source) > MaxInput {
		t.Fatalf("read %d bytes of fields from at most %d of input", len(in.Cwd)+len(in.Source), MaxInput)
	}
}
