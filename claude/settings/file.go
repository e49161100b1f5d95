package settings

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/internal/safefile"
	"golang.org/x/sys/unix"
)

// Errors of editing a settings file. Reading one also refuses with
// safefile.ErrSymlink, safefile.ErrNotRegular, ErrTooLarge and the parse
// errors.
var (
	// ErrLinkedProject: a project's .claude is a symbolic link. A
	// repository's .claude is its author's choice. A link there could send
	// the edit into another settings file (found in review).
	ErrLinkedProject = errors.New("the project's .claude is a symbolic link")
	// ErrChanged: the file changed between its reading and the write.
	// Claude Code writes it too. Nothing was replaced.
	ErrChanged = errors.New("changed while skillwire was editing it")
	// ErrTooManyBackups: MaxBackups backups exist already.
	ErrTooManyBackups = errors.New("too many backups")
	// ErrMoved: the folder holding the file is not the one it was read
	// in; it was swapped meanwhile. Nothing was written.
	ErrMoved = errors.New("its folder was replaced while skillwire was editing it")
)

// MaxBackups bounds the search for a free backup name.
const MaxBackups = 1000

// File is a settings.json as read, and its parsed document.
type File struct {
	Dir, Path string
	Exists    bool
	Mode      fs.FileMode // the file's, kept by the edit; 0600 for a new one
	Doc       *Doc
	// dirMode is the mode Dir (and, when parents, its parent) is created
	// with when missing. It is 0700 for a user's own. It is 0755 for the
	// managed drop-in, which every user's Claude Code must read.
	dirMode fs.FileMode
	parents bool
	max     int64 // the file's size bound: config.MaxJSON unless OpenFile names one

	orig  []byte // the bytes read
	canon []byte // the document as read, in Encode's layout
	// read is the file as read: its mode and owner, which its backup
	// keeps, and the folder it was read in. The write goes there or
	// nowhere.
	read struct {
		mode     fs.FileMode
		owner    safefile.Owner
		dev, ino uint64
		dirKnown bool
	}
}

// Open reads the settings.json of the configuration directory dir.
// A missing file is an empty document. Only a regular file is read, never
// through a link.
func Open(dir string) (*File, error) {
	return open(&File{Dir: dir, Path: claude.SettingsPath(dir), Mode: 0o600, dirMode: 0o700})
}

// ManagedDropIn is the file `hook install --managed` writes in the managed
// directory's managed-settings.d. Claude Code reads every drop-in there as
// managed settings. Their hooks run even where a project's settings set
// disableAllHooks.
const ManagedDropIn = "skillwire.json"

// OpenManaged reads skillwire's drop-in in managed's managed-settings.d,
// as Open. A missing one is an empty document. A new drop-in and its
// directories are made readable by every user.
func OpenManaged(managed string) (*File, error) {
	dir := pathname.Join(managed, "managed-settings.d")
	return open(&File{Dir: dir, Path: pathname.Join(dir, ManagedDropIn), Mode: 0o644, dirMode: 0o755, parents: true})
}

func open(f *File) (*File, error) {
	d, err := safefile.OpenDir(f.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		f.Doc = New()
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	defer unix.Close(d)
	err = f.readIn(d, config.MaxJSON, Parse)
	if errors.Is(err, fs.ErrNotExist) {
		f.Doc = New()
		return f, nil
	}
	return f, err
}

// readIn reads the file, named by f.Path's last component, in the folder
// dirfd. It parses it and records what it was read as.
func (f *File) readIn(dirfd int, max int64, parse func([]byte) (*Doc, error)) error {
	var dir unix.Stat_t
	if err := unix.Fstat(dirfd, &dir); err != nil {
		return err
	}
	b, fi, err := safefile.ReadAt(dirfd, f.name(), max, safefile.Trust{})
	switch {
	case errors.Is(err, safefile.ErrTooLarge):
		return ErrTooLarge
	case err != nil:
		return err
	}
	if f.Doc, err = parse(b); err != nil {
		return err
	}
	f.Exists, f.Mode, f.orig, f.canon = true, fi.Mode().Perm(), b, f.Doc.Encode()
	f.read.mode, f.read.dev, f.read.ino, f.read.dirKnown = fi.Mode().Perm(), uint64(dir.Dev), uint64(dir.Ino), true
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		f.read.owner = safefile.Owner{UID: int(st.Uid), GID: int(st.Gid)}
	}
	return nil
}

// name is the file's name in its folder.
func (f *File) name() string { return f.Path[strings.LastIndexByte(f.Path, '/')+1:] }

// OpenProject reads the settings.json of the project's .claude,
// refusing a .claude that is a link (ErrLinkedProject).
func OpenProject(project string) (*File, error) {
	dir := claude.ProjectConfigDir(project)
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, ErrLinkedProject
	}
	return Open(dir)
}

// InstallHook adds h's hook running command, unless exactly it is there
// already. added is then false: installing twice is one install. others
// counts h's hooks of other skillwire binaries, which install leaves in
// place.
func (s *Doc) InstallHook(h HookSpec, command string) (added bool, others int, err error) {
	cmds, err := s.Commands(h.Event)
	if err != nil {
		return false, 0, err
	}
	for _, c := range cmds {
		if c != command && h.IsCommand(c) {
			others++
		}
	}
	added, err = s.AddHook(h.Event, h.Matcher, command)
	return added, others, err
}

// UninstallHooks removes h's hooks of self and those of any binary named
// skillwire, and returns them. self is the running binary's command for
// h, "" when it cannot name itself.
func (s *Doc) UninstallHooks(h HookSpec, self string) ([]string, error) {
	return s.RemoveHooks(h.Event, func(c string) bool { return (self != "" && c == self) || h.IsCommand(c) })
}

// Change is the file's text before the edit and after it, both in
// Encode's layout, for showing the difference. before is nil when the
// file does not exist.
func (f *File) Change() (before, after []byte) {
	return f.canon, f.Doc.Encode()
}

// Reformatted reports that writing the file changes its whitespace
// besides the edit: it was not in Encode's layout.
func (f *File) Reformatted() bool {
	return f.Exists && !bytes.Equal(f.orig, f.canon)
}

// WriteError is a step of Write that failed on Path.
type WriteError struct {
	Op   string // "creating", "writing in", "writing the backup"
	Path string
	Err  error
}

func (e *WriteError) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// Is matches ErrWrite: a step of the write failed on the system's side.
func (e *WriteError) Is(target error) bool { return target == ErrWrite }

// ErrWrite is what every *WriteError matches.
var ErrWrite = errors.New("the settings file could not be written")

// Write backs the original up under a name no file has. Then it replaces
// the file with the edited document atomically, with the original's mode
// (DESIGN.md §8). It refuses (ErrChanged) when the file is no longer what
// was read, or was created meanwhile. backup is the backup's path, if
// any. The folder is opened once (WriteAt): nothing after goes by path.
func (f *File) Write() (backup string, err error) {
	if !f.Exists {
		if f.parents {
			if err := os.Mkdir(pathname.Parent(f.Dir), f.dirMode); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", &WriteError{"creating", pathname.Parent(f.Dir), err}
			}
		}
		if err := os.Mkdir(f.Dir, f.dirMode); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", &WriteError{"creating", f.Dir, err}
		}
	}
	d, err := safefile.OpenDir(f.Dir)
	if err != nil {
		return "", &WriteError{"writing in", f.Dir, err}
	}
	defer unix.Close(d)
	return f.WriteAt(d)
}

// WriteAt is Write in the folder dirfd, which the caller opened and
// proved. It must be the folder the file was read in, else ErrMoved. The
// backup, the temporary file, the check and the rename all go through it.
// The backup keeps the mode the file had when read, whatever mode the
// edit gives the file. It keeps the owner too, where the process may give
// it.
func (f *File) WriteAt(dirfd int) (backup string, err error) {
	data := f.Doc.Encode()
	if !f.Exists {
		err := safefile.CreateAt(dirfd, f.name(), data, f.Mode, nil)
		switch {
		case errors.Is(err, fs.ErrExist):
			return "", ErrChanged
		case err != nil:
			return "", &WriteError{"writing in", f.Dir, err}
		}
		return "", nil
	}
	var dir unix.Stat_t
	if err := unix.Fstat(dirfd, &dir); err != nil {
		return "", &WriteError{"writing in", f.Dir, err}
	}
	if !f.read.dirKnown || uint64(dir.Dev) != f.read.dev || uint64(dir.Ino) != f.read.ino {
		return "", ErrMoved
	}
	if backup, err = f.writeBackup(dirfd); err != nil {
		return "", err
	}
	err = safefile.WriteAt(dirfd, f.name(), data, f.Mode, func() error {
		now, _, err := safefile.ReadAt(dirfd, f.name(), cmp.Or(f.max, config.MaxJSON), safefile.Trust{})
		if err != nil || !bytes.Equal(now, f.orig) {
			return ErrChanged
		}
		return nil
	})
	switch {
	case errors.Is(err, ErrChanged), errors.Is(err, safefile.ErrNotRegular):
		return backup, ErrChanged
	case err != nil:
		return backup, &WriteError{"writing in", f.Dir, err}
	}
	return backup, nil
}

// writeBackup writes the original bytes to settings.json.skillwire-backup
// in dirfd, or to the first free .N after it. An existing backup is never
// overwritten.
func (f *File) writeBackup(dirfd int) (string, error) {
	base := f.name() + ".skillwire-backup"
	for i := range MaxBackups {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s.%d", base, i)
		}
		err := safefile.CreateAt(dirfd, name, f.orig, f.read.mode, &f.read.owner)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", &WriteError{"writing the backup", f.Dir + "/" + name, err}
		}
		return f.Dir + "/" + name, nil
	}
	return "", fmt.Errorf("%w: %s holds %d backups of %s already (%s.N); move them out of the folder and try again",
		ErrTooManyBackups, f.Dir, MaxBackups, f.name(), base)
}

// QuoteJSON spells s as a JSON string the way a settings file shows it.
// Quotes, backslashes and control characters are escaped, everything
// else kept as it is. The terminal escaping comes after, on the whole
// line.
func QuoteJSON(s string) string {
	var b bytes.Buffer
	b.WriteString(`"`)
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(`"`)
	return b.String()
}
