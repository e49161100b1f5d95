package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Package is the client's npm package. Its native binary comes in the
// platform package beside it and needs no Node.
const Package = "@anthropic-ai/claude-code"

var versionShape = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// Client returns the client binary to drive and its version. It is
// $SKILLWIRE_E2E_CLAUDE when set. Else it is the version pinned in
// CLAUDE_CODE_VERSION, or in $CLAUDE_CODE_VERSION ("latest" asks npm for the
// newest). npm installs it into a cache outside the tree.
func Client() (bin, version string, err error) {
	if bin = os.Getenv("SKILLWIRE_E2E_CLAUDE"); bin != "" {
		version, err = clientVersion(bin)
		return bin, version, err
	}
	want, err := pinned()
	if err != nil {
		return "", "", err
	}
	if want == "latest" {
		out, err := exec.Command("npm", "view", Package, "version").Output()
		if err != nil {
			return "", "", fmt.Errorf("npm view %s version: %w", Package, err)
		}
		want = strings.TrimSpace(string(out))
	}
	if !versionShape.MatchString(want) {
		return "", "", fmt.Errorf("client version %q is not of the shape 1.2.3", want)
	}
	cache := os.Getenv("SKILLWIRE_E2E_CACHE")
	if cache == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", "", err
		}
		cache = filepath.Join(c, "skillwire-e2e")
	}
	prefix := filepath.Join(cache, want)
	bin = filepath.Join(prefix, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude")
	if _, err := os.Stat(bin); err != nil {
		install := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", prefix, Package+"@"+want)
		if out, err := install.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("npm install %s@%s: %w\n%s", Package, want, err, out)
		}
	}
	version, err = clientVersion(bin)
	if err != nil {
		return "", "", err
	}
	if !strings.HasPrefix(version, want+" ") && version != want {
		return "", "", fmt.Errorf("%s says it is %q, not %s", bin, version, want)
	}
	return bin, version, nil
}

// pinned is the version to test: $CLAUDE_CODE_VERSION, else the one file
// that pins it.
func pinned() (string, error) {
	if v := os.Getenv("CLAUDE_CODE_VERSION"); v != "" {
		return v, nil
	}
	b, err := os.ReadFile("CLAUDE_CODE_VERSION")
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", errors.New("CLAUDE_CODE_VERSION is empty")
	}
	return v, nil
}

func clientVersion(bin string) (string, error) {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	return string(bytes.TrimSpace(out)), nil
}
