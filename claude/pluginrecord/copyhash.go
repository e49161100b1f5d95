package pluginrecord

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/skillwire/skillwire/walker"
)

// Claude Code 2.1.328 records a copyHash in installed_plugins.json for a
// plugin that managed settings enable from a remote marketplace. At each
// load it refuses the plugin when its folder no longer hashes to it.
// TestTheClientsCopyHashIsRecomputedAndAMismatchIsTold pins this. The hash
// is built in two steps.
//
//   - digest is "sha256-" + base64(SHA-256 over the folder's files). The
//     files are sorted by path. A file is "f <path>\0<size>\0<bytes>". A
//     link inside node_modules is "l <path>\0<size>\0<target>".
//   - copyHash is base64(SHA-256(canonical JSON of {tag:
//     "listed-mod-copy-1", userID, pluginId, source, digest})).
//
// userID is the client's own (.claude.json). pluginId is the folded
// plugin@marketplace. source is the marketplace's source object.

// copyTag names the client's hash and its version.
const copyTag = "listed-mod-copy-1"

// pycache is the directory name the client deletes from a copy before
// digesting it.
const pycache = "__pycache__"

// copyNoise are the names at a folder's root the client's digest passes
// over. They are its bookkeeping: .in_use, .orphaned_at,
// .links_materialized, .claude-plugin-link, .claude-directory-proof.json.
// They are also a clone's .git and .mcpb-cache. The bundle holds this one
// set of them.
var copyNoise = []string{".claude-directory-proof.json", ".claude-plugin-link", ".git", ".in_use", ".links_materialized", ".mcpb-cache", ".orphaned_at"}

// The client refuses to hash a folder past these limits. Outside
// node_modules they are 4,096 files or 32 MiB. Inside they are 64,000
// files or 512 MiB. skillwire reads node_modules only to 64 MiB. Past that
// the folder is not checked.
const (
	copyMaxFiles       = 4096
	copyMaxBytes       = 32 << 20
	copyMaxModules     = 64000
	copyMaxModuleBytes = 64 << 20
	copyMaxDepth       = 64
)

// ErrNotHashable is why a copyHash could not be computed. The client would
// not hash the folder either, or skillwire will not read it.
var ErrNotHashable = errors.New("pluginrecord: not hashable as Claude Code hashes a plugin copy")

// inModules is the client's test for a path inside node_modules.
func inModules(path string) bool { return strings.HasPrefix(path, "node_modules/") }

// CopyDigest is the client's digest of the plugin folder dir, read through
// the walker. Nothing below dir is followed. Links inside node_modules are
// read as their target text.
func CopyDigest(dir string) (string, error) {
	files, r, err := walker.ReadTree(dir, walker.TreeConfig{
		Limits: walker.TreeLimits{MaxFiles: copyMaxFiles + copyMaxModules, MaxBytes: copyMaxBytes + copyMaxModuleBytes, MaxDepth: copyMaxDepth},
		Skip:   func(path string) bool { return slices.Contains(copyNoise, path) },
		// The client removes every __pycache__ directory of a cached copy
		// before it digests it (the bundle's P8n). It does so at install
		// and at load. So Python's byte-code caches are never part of the
		// copy it checks.
		SkipDir: func(path string) bool { return path == pycache || strings.HasSuffix(path, "/"+pycache) },
		Link:    inModules,
	})
	if err != nil {
		return "", err
	}
	if r != 0 {
		return "", fmt.Errorf("%w: %s", ErrNotHashable, r)
	}
	return copyDigest(files)
}

// copyDigest digests files as the client does, refusing what it refuses.
func copyDigest(files []walker.TreeFile) (string, error) {
	var n, nm int
	var size, sizem int64
	for _, f := range files {
		if !utf8.ValidString(f.Path) {
			return "", fmt.Errorf("%w: a name is not UTF-8", ErrNotHashable)
		}
		if inModules(f.Path) {
			nm, sizem = nm+1, sizem+int64(len(f.Data))
		} else {
			n, size = n+1, size+int64(len(f.Data))
		}
	}
	if n > copyMaxFiles || size > copyMaxBytes || nm > copyMaxModules || sizem > copyMaxModuleBytes {
		return "", fmt.Errorf("%w: past the client's limits", ErrNotHashable)
	}
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b walker.TreeFile) int { return jsCompare(a.Path, b.Path) })
	h := sha256.New()
	for _, f := range files {
		kind := "f"
		if f.Link {
			kind = "l"
		}
		fmt.Fprintf(h, "%s %s\x00%d\x00", kind, f.Path, len(f.Data))
		h.Write(f.Data)
	}
	return "sha256-" + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}

// CopyHash is the client's copyHash of a folder of digest digest. The
// folder is installed as plugin (plugin@marketplace) for the user userID.
// It comes from a marketplace whose source is the JSON source. Some input
// is ErrNotHashable, never a guess. That is a plugin name the client would
// fold otherwise than skillwire can: anything but ASCII. It is also a
// source the client would not hold: one with a number in it.
func CopyHash(userID, plugin string, source json.RawMessage, digest string) (string, error) {
	for i := 0; i < len(plugin); i++ {
		if plugin[i] >= utf8.RuneSelf {
			return "", fmt.Errorf("%w: a plugin name not ASCII", ErrNotHashable)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(source))
	dec.UseNumber()
	var src any
	if err := dec.Decode(&src); err != nil {
		return "", fmt.Errorf("%w: its source is not JSON", ErrNotHashable)
	}
	var b bytes.Buffer
	if !jsJSON(&b, map[string]any{"tag": copyTag, "userID": userID, "pluginId": strings.ToLower(plugin), "source": src, "digest": digest}) {
		return "", fmt.Errorf("%w: its source holds a number", ErrNotHashable)
	}
	sum := sha256.Sum256(b.Bytes())
	return base64.StdEncoding.EncodeToString(sum[:]), nil
}

// jsJSON writes v as the client's canonical JSON. That is JSON.stringify's
// text with every object's keys sorted as JavaScript sorts strings. A
// number is refused: JavaScript's own formatting of it is not reproduced
// here.
func jsJSON(b *bytes.Buffer, v any) bool {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		jsString(b, v)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if !jsJSON(b, e) {
				return false
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, jsCompare)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			jsString(b, k)
			b.WriteByte(':')
			if !jsJSON(b, v[k]) {
				return false
			}
		}
		b.WriteByte('}')
	default:
		return false
	}
	return true
}

// jsString writes s as JSON.stringify does. Only '"', '\\' and the C0
// controls are escaped. U+2028, HTML characters and DEL stay as themselves.
func jsString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// jsCompare orders strings as JavaScript's default sort does: by UTF-16
// code unit. So a character past U+FFFF sorts below U+E000–U+FFFF.
func jsCompare(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// copyReason is err as the words a fact tells. It says why no copyHash
// was computed.
func copyReason(err error) string {
	return strings.TrimPrefix(err.Error(), ErrNotHashable.Error()+": ")
}
