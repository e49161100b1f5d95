package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/skillwire/skillwire/anomaly"
)

// ErrEvent is returned for an event that cannot be encoded (no class).
var ErrEvent = errors.New("events: not an event")

// Stamp fills what the caller leaves to the process. That is the event
// id, the time, the host, the user and the product version. Fields already
// set are kept; the golden tests set them all.
func Stamp(e *Event) error {
	if e.Metadata.UID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return fmt.Errorf("events: minting an event id: %w", err)
		}
		e.Metadata.UID = id.String()
	}
	if e.Time == 0 {
		e.Time = time.Now().UnixMilli()
	}
	h := host()
	if e.Device.Hostname == "" {
		e.Device.Hostname = h.hostname
	}
	if e.Actor.User.Name == "" && e.Actor.User.UID == "" {
		e.Actor.User.Name, e.Actor.User.UID = h.user, h.uid
	}
	if e.Metadata.Product.Version == "" {
		e.Metadata.Product.Version = ProductVersion
	}
	return nil
}

type hostFacts struct{ hostname, user, uid string }

// host is looked up once per process. A hook appends a handful of events.
var host = sync.OnceValue(func() hostFacts {
	var h hostFacts
	h.hostname, _ = os.Hostname()
	h.uid = strconv.Itoa(os.Getuid())
	if u, err := user.LookupId(h.uid); err == nil {
		h.user = u.Username
	}
	return h
})

// Encode renders e as one line of JSON, newline included. The line is
// printable ASCII. Every other rune of a name or path is a JSON \u escape,
// by anomaly.EscapeJSON, the one escaper. So the value a parser reads is
// the file's own text. Nothing in it acts on a terminal that shows the
// file.
func Encode(e *Event) ([]byte, error) {
	if e.ClassUID == 0 {
		return nil, ErrEvent
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("events: encoding: %w", err)
	}
	line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	out := anomaly.EscapeJSON(line)
	return append([]byte(out), '\n'), nil
}
