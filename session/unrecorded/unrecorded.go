// Package unrecorded keeps, beside the store, that a session start told
// its session but could not record what it told. The store could not take
// it, so the mark is a small file of its own. The next start reads it and
// tells it: without the mark the person would hear the same findings again,
// or "first run" every session, and never why. A start that records clears
// it.
package unrecorded

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/internal/safefile"
)

// FileName is the mark's file in the store's directory.
const FileName = "unrecorded-start"

// maxMark bounds what Read reads: a time and a health word.
const maxMark = 256

// Mark is one start that delivered and did not record.
type Mark struct {
	// At is when; zero when the mark could not be read.
	At time.Time
	// Why is the store's health word when it failed so (busy, corrupt,
	// …), Refused when it refused the record itself, "" when unknown.
	Why string
}

// Refused is the reason of a record the store refused, as it refuses a
// record it does not know, rather than failing whole.
const Refused = "refused"

// reason is err in one fixed word.
func reason(err error) string {
	// HealthOf says corrupt of any error that is none of the store's.
	if h := baseline.HealthOf(err); h != baseline.Corrupt || errors.Is(err, baseline.ErrCorrupt) {
		return string(h)
	}
	return Refused
}

// Set marks that the start at at could not record (err, its store error).
// Its own failure is returned: the caller logs it, as it logs err.
func Set(dir string, at time.Time, err error) error {
	line := at.UTC().Format(time.RFC3339) + " " + reason(err) + "\n"
	return safefile.Write(dir+"/"+FileName, []byte(line), 0o600, nil)
}

// After keeps what a start's delivery came to: a start that delivered
// and failed to record (err) is marked; one that delivered and recorded
// clears the mark it was told (marked). An undelivered start changes
// nothing: the next is told all again.
func After(dir string, now time.Time, delivered bool, err error, marked bool) error {
	switch {
	case delivered && err != nil:
		return Set(dir, now, err)
	case delivered && marked:
		return Clear(dir)
	}
	return nil
}

// Read is the mark in dir, or nil when there is none. A mark that cannot
// be read, or that holds what Set never writes, is still a mark: that a
// start was not recorded is told, its time and reason unknown.
func Read(dir string) *Mark {
	b, _, err := safefile.Read(dir+"/"+FileName, maxMark, safefile.Trust{Owner: true, DenyPerm: 0o022})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	m := &Mark{}
	if err != nil {
		return m
	}
	at, why, ok := strings.Cut(strings.TrimSuffix(string(b), "\n"), " ")
	t, terr := time.Parse(time.RFC3339, at)
	switch baseline.Health(why) {
	case baseline.Absent, baseline.Corrupt, baseline.Stale, baseline.Untrusted, baseline.Busy, Refused:
	default:
		return m
	}
	if !ok || terr != nil {
		return m
	}
	m.At, m.Why = t, why
	return m
}

// Clear removes the mark once a start recorded. A mark that is not a
// regular file is left: Read tells it every start, and status shows the
// store's directory.
func Clear(dir string) error {
	p := dir + "/" + FileName
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &safefile.KindError{Mode: fi.Mode()}
	}
	return os.Remove(p)
}

// Words is the mark for the session, in fixed words only.
func (m *Mark) Words() string {
	s := "skillwire's last session start"
	if !m.At.IsZero() {
		s += " (" + m.At.Format(time.RFC3339) + ")"
	}
	s += " told its session but could not record it"
	switch m.Why {
	case "":
		s += " (why is unknown)"
	case Refused:
		s += " (the store refused it)"
	default:
		s += " (the store was " + m.Why + ")"
	}
	return s + ": what it told is told again."
}
