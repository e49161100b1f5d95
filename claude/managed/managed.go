// Package managed reads the configuration an administrator sets for
// skillwire: <managed>/skillwire.json, beside Claude Code's managed
// settings. A user cannot override it. It sets the gate's policy and where
// a fleet's events go. skillwire reads it and never writes it.
package managed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"syscall"

	"github.com/skillwire/skillwire/internal/safefile"
)

// File is the configuration's name in the managed directory.
const File = "skillwire.json"

// maxFile bounds the file read.
const maxFile = 64 << 10

// Config is what an administrator set; the zero Config sets nothing.
type Config struct {
	// GatePolicy is audit, balanced or strict; "" leaves the person's.
	GatePolicy string `json:"gate_policy,omitempty"`
	Events     Events `json:"events,omitzero"`
}

// Events says where the fleet's events go.
type Events struct {
	// OTLP switches shipping on, whatever the person's environment says.
	OTLP bool `json:"otlp,omitempty"`
	// Endpoint is the OTLP/HTTP logs endpoint URL. Headers are sent with
	// every export. Both take the place of OTEL_EXPORTER_OTLP_* when set.
	Endpoint string            `json:"endpoint,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
}

// ErrConfig: the file is there but cannot be trusted or read. What it
// would set is unknown, so callers answer as strictly as it could have.
var ErrConfig = errors.New("managed configuration")

// Read reads dir's skillwire.json. A missing file (or dir "") is the zero
// Config. The file must be a regular file, never read through a link. It
// must be owned by root or by the user and writable by no one else. It
// must be one JSON object of the known keys. Anything else is ErrConfig,
// never half-read.
func Read(dir string) (Config, error) {
	if dir == "" {
		return Config{}, nil
	}
	path := dir + "/" + File
	b, fi, err := safefile.Read(path, maxFile, safefile.Trust{DenyPerm: 0o022})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Config{}, nil
	case err != nil:
		return Config{}, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != 0 && int(st.Uid) != os.Geteuid() {
		return Config{}, fmt.Errorf("%w: %s is owned by neither root nor this user", ErrConfig, path)
	}
	if err := exactKeys(b); err != nil {
		return Config{}, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	if dec.More() {
		return Config{}, fmt.Errorf("%w: %s: more than one JSON value", ErrConfig, path)
	}
	switch c.GatePolicy {
	case "", "audit", "balanced", "strict":
	default:
		return Config{}, fmt.Errorf("%w: %s: gate_policy must be audit, balanced or strict", ErrConfig, path)
	}
	return c, nil
}

// exactKeys refuses what encoding/json would take too loosely. That is a
// document that is not one object (null). It is also a key matched without
// regard to case, or given twice with the last winning. An example is
// {"gate_policy":"strict", "GATE_POLICY":"audit"}.
func exactKeys(b []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil || top == nil {
		return errors.New("not one JSON object")
	}
	known := map[string][]string{"gate_policy": nil, "events": {"otlp", "endpoint", "headers"}}
	if err := noDuplicates(b); err != nil {
		return err
	}
	for k, v := range top {
		sub, ok := known[k]
		if !ok {
			return fmt.Errorf("unknown key %q", k)
		}
		if sub == nil {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil || m == nil {
			return fmt.Errorf("%s is not one object", k)
		}
		if err := noDuplicates(v); err != nil {
			return err
		}
		for sk := range m {
			if !slices.Contains(sub, sk) {
				return fmt.Errorf("unknown key %q in %s", sk, k)
			}
		}
	}
	return nil
}

// noDuplicates refuses an object that gives one key twice.
func noDuplicates(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("not one JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		if seen[k] {
			return fmt.Errorf("key %q given twice", k)
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// Policy is the gate policy managed configuration imposes: c's, "" for
// none. It is strict when the file could not be read, since the file may
// have set strict. The gate is never weaker than an administrator may have
// chosen.
func Policy(c Config, err error) string {
	if err != nil {
		return "strict"
	}
	return c.GatePolicy
}

// ReadAll reads and joins the configuration of every directory in dirs.
// The client's own managed directory comes first, then any other skillwire
// is pointed at. The join takes the strictest policy and the first events
// target set. Shipping is on if any turns it on. An error of any is
// returned, and Policy then answers strict.
func ReadAll(dirs ...string) (Config, error) {
	var out Config
	var errs []error
	rank := map[string]int{"": 0, "audit": 1, "balanced": 2, "strict": 3}
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" || seen[d] {
			continue
		}
		seen[d] = true
		c, err := Read(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if rank[c.GatePolicy] > rank[out.GatePolicy] {
			out.GatePolicy = c.GatePolicy
		}
		out.Events.OTLP = out.Events.OTLP || c.Events.OTLP
		if out.Events.Endpoint == "" && c.Events.Endpoint != "" {
			out.Events.Endpoint, out.Events.Headers = c.Events.Endpoint, c.Events.Headers
		}
	}
	return out, errors.Join(errs...)
}
