package shellcmd

import (
	"context"
	"errors"
	"fmt"
)

// Within runs decision (Decision, or a test's stand-in) on command under
// ctx. A panic is an internal error. A read cut short returns ctx's error,
// so a caller can answer by its policy, never by silence.
func Within(ctx context.Context, command string, decision func(string) (string, bool, error)) (string, bool, error) {
	type decided struct {
		what string
		ok   bool
		err  error
	}
	done := make(chan decided, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- decided{err: fmt.Errorf("shellcmd: internal error: %v", r)}
			}
		}()
		what, ok, err := decision(command)
		done <- decided{what, ok, err}
	}()
	select {
	case d := <-done:
		return d.what, d.ok, d.err
	case <-ctx.Done():
		return "", false, ctx.Err()
	}
}

// Unread names the bound a command passed. It quotes none of the command.
func Unread(err error) string {
	switch {
	case errors.Is(err, ErrTooLarge):
		return fmt.Sprintf("the Bash command is larger than %d bytes", MaxBytes)
	case errors.Is(err, ErrTooDeep):
		return fmt.Sprintf("the Bash command nests deeper than %d", MaxDepth)
	}
	return "the Bash command expands past what skillwire reads"
}
