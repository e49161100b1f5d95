package gitignore

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/skillwire/skillwire/internal/safefile"
)

// maxSmall bounds a .git file, a commondir file and one config file.
const (
	maxSmall  = 4 << 10
	maxConfig = 1 << 20
)

// gitDirs are the repository folders git reads for a work tree. A linked
// work tree (.git a file) has its own index; the common folder holds the
// configuration and info/exclude.
type gitDirs struct {
	dir, common, index string
}

// findGitDirs resolves top/.git. A repository git would refuse (another
// user's, without safe.directory) is none: the client's git then fails
// and ignores nothing.
func findGitDirs(top string) (gitDirs, bool) {
	dot := top + "/.git"
	fi, err := os.Lstat(dot)
	if err != nil || !ownedHere(top) {
		return gitDirs{}, false
	}
	dir := dot
	if !fi.IsDir() {
		b, _, err := safefile.Read(dot, maxSmall, safefile.Trust{})
		p, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
		if err != nil || !ok || p == "" {
			return gitDirs{}, false
		}
		dir = resolve(top, p)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || !ownedHere(dir) {
		return gitDirs{}, false
	}
	common := dir
	switch b, _, err := safefile.Read(dir+"/commondir", maxSmall, safefile.Trust{}); {
	case err == nil:
		common = resolve(dir, strings.TrimRight(string(b), "\r\n"))
	case !errors.Is(err, fs.ErrNotExist):
		return gitDirs{}, false
	}
	return gitDirs{dir: dir, common: common, index: dir + "/index"}, true
}

func resolve(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

func ownedHere(p string) bool {
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// settings are what git's configuration says of ignoring.
type settings struct {
	// excludesFile is core.excludesFile resolved; "" reads none. Unknown:
	// a file that could set it was not read whole, or it names no file
	// this package can place.
	excludesFile    string
	excludesUnknown bool
	ignoreCase      bool // core.ignoreCase, or not sure it is off
	hashSize        int  // of an object name in the index; 0: not known
}

// readConfig reads the files git would, in its order: system, global,
// the repository's. The last value wins, as in git. An include is not
// followed: it may set core.excludesFile, so that value is unknown. A
// file git cannot parse stops git, and then nothing is ignored.
func readConfig(g gitDirs, env func(string) (string, bool)) settings {
	home, _ := env("HOME")
	xdg, _ := env("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = home + "/.config"
	}
	s := settings{hashSize: 20, excludesFile: xdg + "/git/ignore", excludesUnknown: xdg == ""}
	var user []string
	if v, ok := env("GIT_CONFIG_SYSTEM"); ok {
		user = append(user, v)
	} else if _, ok := env("GIT_CONFIG_NOSYSTEM"); !ok {
		user = append(user, "/etc/gitconfig")
	}
	if v, ok := env("GIT_CONFIG_GLOBAL"); ok {
		user = append(user, v)
	} else {
		if xdg != "" {
			user = append(user, xdg+"/git/config")
		}
		if home != "" {
			user = append(user, home+"/.gitconfig")
		}
	}
	for _, f := range user {
		c, err := readConfigFile(f)
		if errors.Is(err, errBadConfig) {
			return settings{}
		}
		if err != nil {
			s.excludesUnknown = true // a link or a huge file: git reads it
			continue
		}
		s.apply(c, home)
	}
	c, err := readConfigFile(g.common + "/config")
	if err != nil {
		return settings{}
	}
	s.apply(c, home)
	ext := c.Section("extensions")
	switch f := strings.ToLower(ext.Option("objectFormat")); {
	case !ext.HasOption("objectFormat") || f == "sha1":
	case f == "sha256":
		s.hashSize = 32
	default:
		return settings{}
	}
	if ext.HasOption("worktreeConfig") && !isFalse(ext.Option("worktreeConfig")) {
		c, err := readConfigFile(g.dir + "/config.worktree")
		if err != nil {
			return settings{}
		}
		s.apply(c, home)
	}
	return s
}

// apply takes what one configuration file sets.
func (s *settings) apply(c *config.Config, home string) {
	if c.HasSection("include") || c.HasSection("includeIf") {
		s.excludesUnknown = true
	}
	core := c.Section("core")
	if core.HasOption("excludesFile") {
		s.excludesFile, s.excludesUnknown = placed(core.Option("excludesFile"), home)
	}
	if core.HasOption("ignoreCase") {
		s.ignoreCase = !isFalse(core.Option("ignoreCase"))
	}
}

// errBadConfig: a configuration file read whole that does not parse.
var errBadConfig = errors.New("gitignore: configuration does not parse")

// readConfigFile: a missing file is an empty configuration.
func readConfigFile(path string) (*config.Config, error) {
	c := config.New()
	if path == "" || path == os.DevNull {
		return c, nil
	}
	b, _, err := safefile.Read(path, maxConfig, safefile.Trust{})
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(b, 0) >= 0 || config.NewDecoder(bytes.NewReader(b)).Decode(c) != nil {
		return nil, errBadConfig
	}
	return c, nil
}

// placed is a core.excludesFile value as a path: absolute, or under the
// home folder by "~/". Anything else is unknown.
func placed(v, home string) (string, bool) {
	switch {
	case v == "":
		return "", false
	case strings.HasPrefix(v, "/"):
		return v, false
	case strings.HasPrefix(v, "~/") && home != "":
		return home + v[1:], false
	}
	return "", true
}

func isFalse(v string) bool {
	switch strings.ToLower(v) {
	case "false", "no", "off", "0":
		return true
	}
	return false
}

// excludes are the patterns below every .gitignore: core.excludesFile,
// then info/exclude, which wins. One not read whole drops the ones below
// it too: its negations could have undone their matches.
func (s settings) excludes(g gitDirs) []rule {
	info, err := readPatterns(g.common+"/info/exclude", nil)
	if err != nil {
		return nil
	}
	if s.excludesUnknown || s.excludesFile == "" {
		return info
	}
	global, err := readPatterns(s.excludesFile, nil)
	if err != nil {
		return info
	}
	return append(global, info...)
}
