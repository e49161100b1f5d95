package settings

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/walker"
)

// ErrProjectSettings: a project's settings file could not be read safely.
// It is a link, not a regular file, too large, or not JSON skillwire can
// parse. Claude Code may still apply it, so what it sets is unknown, not
// absent.
var ErrProjectSettings = errors.New("project settings could not be read")

// ProjectEnvKeys lists the keys of the env object of the project's
// .claude/settings.json and settings.local.json, in file order. A missing
// file or .claude sets nothing. The files are read through the walker
// (walker.ReadFiles), with the arrival proof. Neither .claude nor a file
// is read through a link. A file is read only when regular and at most
// config.MaxJSON bytes. The project itself is opened as given: it comes
// from Claude Code, not from the tree. A file that cannot be read safely
// is ErrProjectSettings. The keys of the other file are still returned.
// So a steering key there is known whatever the other hides.
func ProjectEnvKeys(project string) ([]string, error) {
	if !strings.HasPrefix(project, "/") {
		return nil, fmt.Errorf("%w: the project is not an absolute path", ErrProjectSettings)
	}
	reads, err := walker.ReadFiles(project, ".claude", claude.ProjectSettingsFiles, config.MaxJSON)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProjectSettings, err)
	}
	var keys []string
	var errs []error
	for i, r := range reads {
		k, err := envKeysOf(r)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: %w", ErrProjectSettings, claude.ProjectSettingsFiles[i], err))
		}
		keys = append(keys, k...)
	}
	return keys, errors.Join(errs...)
}

// envKeysOf is the env keys of one settings file read. A missing file
// sets none.
func envKeysOf(r walker.FileRead) ([]string, error) {
	switch {
	case r.Missing:
		return nil, nil
	case r.Reason == anomaly.Oversize:
		return nil, ErrTooLarge
	case r.Reason != 0:
		return nil, fmt.Errorf("not read: %s", r.Reason)
	}
	s, err := Parse(r.Data)
	if err != nil {
		return nil, err
	}
	return s.EnvKeys()
}

// EnvKeys lists the member names of the settings' env object, in order.
// Duplicates are included, since any of them may be the one applied.
func (s *Doc) EnvKeys() ([]string, error) {
	var keys []string
	for _, m := range s.root.members {
		if m.name != "env" {
			continue
		}
		if m.val.kind != object {
			return nil, fmt.Errorf("%w: env is not an object", ErrShape)
		}
		for _, e := range m.val.members {
			keys = append(keys, e.name)
		}
	}
	return keys, nil
}
