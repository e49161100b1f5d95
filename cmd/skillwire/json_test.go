package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestJSONOutputIsPureASCIIAndDecodesToTheSameValue(t *testing.T) {
	in := map[string]string{"s": "a\u202eb\u2028c é 𝄞 <root> \x1b \x7f"}
	var buf bytes.Buffer
	if err := writeJSON(&buf, in); err != nil {
		t.Fatal(err)
	}
	for _, c := range buf.Bytes() {
		if c >= 0x7f {
			t.Fatalf("non-ASCII byte in %q", buf.Bytes())
		}
	}
	var back map[string]string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["s"] != in["s"] {
		t.Fatalf("round trip: %q %v", back, err)
	}
	if !bytes.Contains(buf.Bytes(), []byte("<root>")) {
		t.Fatal("<root> escaped")
	}
}
