package claude

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrProjectSettings: a project's settings file could not be read safely
// (a link, not a regular file, too large, or not JSON skillwire can parse).
// Claude Code may still apply it, so what it sets is unknown, not absent.
var ErrProjectSettings = errors.New("project settings could not be read")

// ProjectSettingsFiles are the files of a project's .claude whose env
// Claude Code applies to its own process, and so to every hook it runs.
var ProjectSettingsFiles = []string{"settings.json", "settings.local.json"}

// HookProjects are the directories whose project settings Claude Code may
// have applied to a hook run in cwd: ProjectDir (CLAUDE_PROJECT_DIR, else
// cwd) and cwd itself when it is absolute, since either may be the one
// Claude Code started in.
func HookProjects(env Env, cwd string) []string {
	ps := []string{ProjectDir(env, cwd)}
	if strings.HasPrefix(cwd, "/") {
		ps = append(ps, cwd)
	}
	return ps
}

// ProjectEnvKeys lists the keys of the env object of the project's
// .claude/settings.json and settings.local.json, in file order. A missing
// file or .claude sets nothing. Each file is reached by descriptors alone:
// .claude opened relative to the project with O_NOFOLLOW, the file relative
// to it with O_NOFOLLOW, and read only when fstat of that very descriptor
// proves it regular and at most MaxSettings bytes, so no link is followed
// and what was checked is what was read. The project itself is opened as
// given: it comes from Claude Code, not from the tree. A file that cannot
// be read safely is ErrProjectSettings, with the keys of the other file
// still returned: a steering key there is known whatever the other hides.
func ProjectEnvKeys(project string) ([]string, error) {
	if !strings.HasPrefix(project, "/") {
		return nil, fmt.Errorf("%w: the project is not an absolute path", ErrProjectSettings)
	}
	pfd, err := unix.Open(project, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: opening the project: %w", ErrProjectSettings, err)
	}
	defer unix.Close(pfd)
	dfd, err := unix.Openat(pfd, ".claude", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: .claude: %w", ErrProjectSettings, err)
	}
	defer unix.Close(dfd)
	var keys []string
	var errs []error
	for _, name := range ProjectSettingsFiles {
		k, err := envKeysAt(dfd, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: %w", ErrProjectSettings, name, err))
		}
		keys = append(keys, k...)
	}
	return keys, errors.Join(errs...)
}

// envKeysAt is the env keys of the settings file name of dirfd; a missing
// file sets none.
func envKeysAt(dirfd int, name string) ([]string, error) {
	b, err := readAt(dirfd, name)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := ParseSettings(b)
	if err != nil {
		return nil, err
	}
	return s.EnvKeys()
}

// readAt reads the regular file name of dirfd, never through a link, never
// blocking on a FIFO, at most MaxSettings bytes.
func readAt(dirfd int, name string) ([]byte, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, errors.New("not a regular file")
	}
	if st.Size > MaxSettings {
		return nil, ErrTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSettings+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSettings {
		return nil, ErrTooLarge
	}
	return b, nil
}

// EnvKeys lists the member names of the settings' env object, in order,
// duplicates included (any of them may be the one applied).
func (s *Settings) EnvKeys() ([]string, error) {
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
