package auditlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// foreign is a line in exactly the shape other skill tools write.
const foreign = `{"timestamp":"2026-11-29T11:00:00.000Z","operation":"create","filePath":".claude/skills/x/SKILL.md","source":"skill-creator"}`

func TestForeignLinesInTheDocumentedShapeAreRead(t *testing.T) {
	for _, line := range []string{
		foreign,
		`{"timestamp":"2026-11-29T11:00:00Z","operation":"refine","filePath":"/home/u/.claude/agents/a.md","source":"refiner","details":{"why":"feedback","n":[1,2]}}`,
		`{"timestamp":"2026-11-29T12:00:00+01:00","operation":"rollback","filePath":"f","source":"","sha256":"` + strings.Repeat("ab", 32) + `"}`,
		`  {"operation":"delete","timestamp":"2026-11-29T11:00:00Z","source":"s","filePath":"f"}  `,
		`{"timestamp":"2026-11-29T11:00:00Z","operation":"migrate","filePath":"f","source":"s"}` + "\r",
	} {
		e, err := ParseLine([]byte(line), now)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if !e.Operation.Valid() || e.FilePath == "" || e.Timestamp.IsZero() {
			t.Fatalf("%s: parsed as %+v", line, e)
		}
	}
}

func TestUnknownFieldsAreKept(t *testing.T) {
	line := `{"timestamp":"2026-11-29T11:00:00Z","operation":"update","filePath":"f","source":"s","sessionId":"abc","extra":{"deep":[true]}}`
	e, err := ParseLine([]byte(line), now)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(e)
	if err != nil || string(out) != line {
		t.Fatalf("marshalled as %s, %v; want the line as read", out, err)
	}
}

func TestInvalidLinesAreRefusedWithTheirReason(t *testing.T) {
	ok := map[string]string{"timestamp": `"2026-11-29T11:00:00Z"`, "operation": `"update"`, "filePath": `"f"`, "source": `"s"`}
	obj := func(over map[string]string) string {
		var parts []string
		for _, k := range []string{"timestamp", "operation", "filePath", "source", "details", "sha256", "prev"} {
			v, set := over[k]
			if !set {
				v = ok[k]
			}
			if v != "" && v != "-" {
				parts = append(parts, `"`+k+`":`+v)
			}
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	hex64 := strings.Repeat("0f", 32)
	for _, tc := range []struct {
		name, line string
		want       error
	}{
		{"too long", `{"x":"` + strings.Repeat("a", MaxLine) + `"}`, ErrTooLong},
		{"empty", "", ErrEmpty},
		{"blank", " \t", ErrEmpty},
		{"NUL", strings.Replace(obj(nil), `"s"`, "\"s\x00\"", 1), ErrNUL},
		{"invalid UTF-8", strings.Replace(obj(nil), `"s"`, "\"s\xff\"", 1), ErrUTF8},
		{"truncated", obj(nil)[:40], ErrMalformed},
		{"two objects", obj(nil) + obj(nil), ErrMalformed},
		{"array", "[" + obj(nil) + "]", ErrMalformed},
		{"null", "null", ErrMalformed},
		{"duplicate field", `{"filePath":"a",` + obj(nil)[1:], ErrMalformed},
		{"duplicate field escaped", `{"file\u0050ath":"a",` + obj(nil)[1:], ErrMalformed},
		{"no timestamp", obj(map[string]string{"timestamp": "-"}), ErrField},
		{"no operation", obj(map[string]string{"operation": "-"}), ErrField},
		{"no filePath", obj(map[string]string{"filePath": "-"}), ErrField},
		{"no source", obj(map[string]string{"source": "-"}), ErrField},
		{"filePath in another case only", strings.Replace(obj(nil), `"filePath"`, `"FilePath"`, 1), ErrField},
		{"number operation", obj(map[string]string{"operation": "5"}), ErrField},
		{"null source", obj(map[string]string{"source": "null"}), ErrField},
		{"empty filePath", obj(map[string]string{"filePath": `""`}), ErrField},
		{"timestamp not RFC 3339", obj(map[string]string{"timestamp": `"2026-11-29 11:00:00"`}), ErrField},
		{"timestamp as a number", obj(map[string]string{"timestamp": "1764414000"}), ErrField},
		{"unknown operation", obj(map[string]string{"operation": `"chmod"`}), ErrOperation},
		{"operation in capitals", obj(map[string]string{"operation": `"UPDATE"`}), ErrOperation},
		{"details a string", obj(map[string]string{"details": `"x"`}), ErrField},
		{"details null", obj(map[string]string{"details": "null"}), ErrField},
		{"sha256 upper case", obj(map[string]string{"sha256": `"` + strings.ToUpper(hex64) + `"`}), ErrField},
		{"sha256 short", obj(map[string]string{"sha256": `"` + hex64[2:] + `"`}), ErrField},
		{"sha256 tagged", obj(map[string]string{"sha256": `"sha256:` + hex64 + `"`}), ErrField},
		{"prev untagged", obj(map[string]string{"prev": `"` + hex64 + `"`}), ErrField},
		{"future", obj(map[string]string{"timestamp": `"2026-11-29T12:02:01Z"`}), ErrFuture},
		{"future in another zone", obj(map[string]string{"timestamp": `"2026-11-29T08:10:00-04:00"`}), ErrFuture},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLine([]byte(tc.line), now)
			if !errors.Is(err, tc.want) {
				t.Fatalf("ParseLine(%.80q) = %v, want %v", tc.line, err, tc.want)
			}
		})
	}
}

func TestTimestampsWithinTheClockSkewAreAccepted(t *testing.T) {
	line := `{"timestamp":"2026-11-29T12:01:59Z","operation":"update","filePath":"f","source":"s"}`
	if _, err := ParseLine([]byte(line), now); err != nil {
		t.Fatalf("a timestamp %v ahead was refused: %v", time.Minute+59*time.Second, err)
	}
}

func TestEncodeWritesOnlySkillwiresFieldsAndRefusesWhatJSONWouldAlter(t *testing.T) {
	e, err := ParseLine([]byte(`{"timestamp":"2026-11-29T11:00:00Z","operation":"update","filePath":"f","source":"s","extra":1}`), now)
	if err != nil {
		t.Fatal(err)
	}
	e.Details = json.RawMessage("{\n  \"a\": \"<b>\"\n}")
	b, err := e.encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"timestamp":"2026-11-29T11:00:00Z","operation":"update","filePath":"f","source":"s","details":{"a":"<b>"}}`
	if string(b) != want {
		t.Fatalf("encoded %s\nwant    %s", b, want)
	}
	e.FilePath = "skills/\xff/f"
	if _, err := e.encode(); !errors.Is(err, ErrField) {
		t.Fatalf("a non-UTF-8 path was encoded (%v): JSON would have replaced its byte", err)
	}
}

// FuzzParseLine: no input panics. An accepted line is valid UTF-8 without
// NUL, within MaxLine. It names a known operation. What skillwire writes
// back for it parses to the same entry.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(foreign))
	f.Add([]byte(`{"timestamp":"2026-11-29T11:00:00Z","operation":"update","filePath":"f","source":"s","details":{"a":[1,{"b":"}"}]},"sha256":"` + strings.Repeat("0", 64) + `","prev":"sha256:` + strings.Repeat("a", 64) + `"}`))
	f.Add([]byte(`{"filePath":"a","filePath":"b"}`))
	f.Add([]byte("{\"x\":\"\\\"}\",\"y\":{}}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseLine(b, now)
		if err != nil {
			return
		}
		if len(b) > MaxLine || bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) || !e.Operation.Valid() || e.FilePath == "" {
			t.Fatalf("accepted %q", b)
		}
		if !bytes.Equal(e.Raw, b) {
			t.Fatal("Raw is not the line")
		}
		if e.Timestamp.After(now.Add(ClockSkew)) {
			t.Fatal("accepted a future timestamp")
		}
		// The top-level scanner agrees with encoding/json on every known field.
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("accepted what encoding/json refuses: %v", err)
		}
		for k, v := range map[string]string{"operation": string(e.Operation), "filePath": e.FilePath, "source": e.Source} {
			if m[k] != v {
				t.Fatalf("%s: scanned %q, encoding/json says %q", k, v, m[k])
			}
		}
		e.Raw = nil
		out, err := e.encode()
		if err != nil {
			t.Fatalf("cannot write back %q: %v", b, err)
		}
		back, err := ParseLine(out, now)
		if err != nil {
			t.Fatalf("written back as %q, which does not parse: %v", out, err)
		}
		if !back.Timestamp.Equal(e.Timestamp) || back.Operation != e.Operation || back.FilePath != e.FilePath ||
			back.Source != e.Source || back.SHA256 != e.SHA256 || back.Prev != e.Prev {
			t.Fatalf("round trip changed the entry: %q -> %q", b, out)
		}
	})
}
