// Package helperbin runs skillwire's helper binaries: skillwire-ship and
// skillwire-service. They live beside skillwire so that what they link
// is never initialized in a hook. One JSON request goes on the helper's
// stdin, one JSON reply comes back on its stdout.
package helperbin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

var (
	// ErrMissing: no helper is installed beside skillwire.
	ErrMissing = errors.New("not installed")
	// ErrUnproven: the helper is there but is not a file skillwire runs.
	ErrUnproven = errors.New("not run")
	// ErrNoAnswer: the helper ran but gave no reply skillwire could read.
	ErrNoAnswer = errors.New("gave no answer")
)

// MaxReply bounds what is read of a request, a reply and stderr.
const MaxReply = 1 << 20

// Beside is the helper name in the folder of exe, skillwire's own binary.
// It must be a regular file, not a link, owned by this user or root, and
// writable by no one else: otherwise it is not run. Call proves it again
// on the file it runs.
func Beside(exe, name string) (string, error) {
	p := filepath.Join(filepath.Dir(exe), name)
	fi, err := os.Lstat(p)
	if err != nil {
		return "", fmt.Errorf("%s is %w beside %s (go install ./cmd/%s, or make build): %w", name, ErrMissing, exe, name, err)
	}
	return p, prove(p, fi)
}

// prove says why the helper p, of file info fi, is not run; nil when it is.
func prove(p string, fi os.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s); it is %w", p, fi.Mode().Type(), ErrUnproven)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by group or others (%s); it is %w", p, fi.Mode().Perm(), ErrUnproven)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() && st.Uid != 0 {
		return fmt.Errorf("%s belongs to uid %d, not to you or root; it is %w", p, st.Uid, ErrUnproven)
	}
	return nil
}

// opened is the helper bin opened without following a link, and proven on
// that open file: what runs is what was proven, whatever the folder holds
// since (runPath).
func opened(bin string) (*os.File, error) {
	f, err := os.OpenFile(bin, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%s is %w: %w", bin, ErrUnproven, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = prove(bin, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Call runs bin with req on its stdin and decodes its stdout into rep.
// bin is opened and proven as Beside proves it, and run from that open
// file where the system allows (runPath).
// err wraps ErrNoAnswer when no reply could be read; it carries stderr.
// exit is the helper's exit error when it did answer: the reply says why.
// The environment goes with it, as the helper's settings may live there.
func Call(ctx context.Context, bin string, req, rep any) (exit, err error) {
	in, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	f, err := opened(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return callFile(ctx, bin, f, in, rep)
}

// callFile runs the proven open file f, the helper bin, with the request
// in on its stdin (Call).
func callFile(ctx context.Context, bin string, f *os.File, in []byte, rep any) (exit, err error) {
	run, err := runPath(f)
	if err != nil {
		return nil, fmt.Errorf("%s is %w: %w", bin, ErrUnproven, err)
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, run)
	cmd.Args[0] = bin
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout = &limited{w: &out, n: MaxReply}
	cmd.Stderr = &limited{w: &stderr, n: MaxReply}
	runErr := cmd.Run()
	if err := json.Unmarshal(out.Bytes(), rep); err != nil {
		return runErr, fmt.Errorf("%s %w (%v): %s", bin, ErrNoAnswer, runErr, bytes.TrimSpace(stderr.Bytes()))
	}
	return runErr, nil
}

// Read is the helper's side: one request from in, bounded, every field known.
func Read(in io.Reader, req any) error {
	dec := json.NewDecoder(io.LimitReader(in, MaxReply))
	dec.DisallowUnknownFields()
	return dec.Decode(req)
}

// limited keeps the first n bytes written and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	k := min(len(p), l.n)
	if k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// Write is the helper's reply to out, one JSON line.
func Write(out io.Writer, rep any) error { return json.NewEncoder(out).Encode(rep) }
