package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
)

// The mod policy is read as the client reads it (pinned by e2e): any
// managed file with a key seats the security default, a managed
// prependPlugins without it unseats it, and only allowManagedModsOnly:
// true where it is seated keeps a person's mod from loading.
func TestTheModPolicyIsReadFromEveryManagedSettingsFile(t *testing.T) {
	const modsOnly = `{"pluginConfigs":{"cc-plugin-sec-default@builtin":{"options":{"allowManagedModsOnly":true}}}}`
	for _, tc := range []struct {
		name   string
		files  map[string]string
		held   bool
		seated bool
		says   string
	}{
		{"a drop-in", map[string]string{"managed-settings.d/a.json": modsOnly}, true, true, "managed mods only: "},
		{"managed-settings.json", map[string]string{"managed-settings.json": modsOnly}, true, true, "managed mods only: "},
		{"control: no managed settings", nil, false, false, "not seated"},
		{"control: {}", map[string]string{"managed-settings.json": `{}`}, false, false, "not seated"},
		{"control: an unrelated key seats, holds nothing", map[string]string{"managed-settings.json": `{"cleanupPeriodDays":3}`}, false, true, "do not set allowManagedModsOnly"},
		{"control: false", map[string]string{"managed-settings.d/a.json": strings.Replace(modsOnly, "true", "false", 1)}, false, true, "other than true"},
		{"control: the short id", map[string]string{"managed-settings.d/a.json": strings.Replace(modsOnly, "cc-plugin-sec-default", "sec-default", 1)}, false, true, "do not set"},
		{"control: prependPlugins without it", map[string]string{"managed-settings.d/a.json": `{"prependPlugins":[],` + modsOnly[1:]}, false, true, "turns the client's security default off"},
		{"prependPlugins listing it", map[string]string{"managed-settings.d/a.json": `{"prependPlugins":["cc-plugin-sec-default@builtin"],` + modsOnly[1:]}, true, true, "managed mods only"},
		{"control: another drop-in says false", map[string]string{"managed-settings.d/a.json": modsOnly, "managed-settings.d/b.json": strings.Replace(modsOnly, "true", `"yes"`, 1)}, false, true, "other than true"},
		{"control: not a .json drop-in", map[string]string{"managed-settings.d/a.txt": modsOnly}, false, false, "not seated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tc.files {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m := ModPolicyOf(claude.Places{Managed: dir})
			if m.Held() != tc.held || m.Seated != tc.seated {
				t.Errorf("held %v seated %v, want %v %v (%+v)", m.Held(), m.Seated, tc.held, tc.seated, m)
			}
			if !strings.Contains(m.String(), tc.says) {
				t.Errorf("says %q, want %q in it", m.String(), tc.says)
			}
			if (m.Advice() == "") != tc.held {
				t.Errorf("advice %q with held %v", m.Advice(), tc.held)
			}
		})
	}
}

// A managed prependPlugins that leaves the security default out is named,
// file by file; one that lists it is not.
func TestPrependsWithoutNamesTheFilesThatUnseatTheSecurityDefault(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "managed-settings.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "managed-settings.d", "a.json"), []byte(`{"prependPlugins":["x@y"]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "managed-settings.d", "b.json"), []byte(`{"prependPlugins":["cc-plugin-sec-default@builtin"]}`), 0o644)
	got := PrependsWithout(claude.Places{Managed: dir})
	if len(got) != 1 || got[0] != filepath.Join(dir, "managed-settings.d", "a.json") {
		t.Errorf("got %q", got)
	}
}

// status says that a session started later is not seen (issue 32): its
// command line cannot be known. It names the place above it, the managed
// disableSideloadFlags, unless a managed file sets it: then the client
// refuses those flags, and status says that, naming the file, escaped.
func TestStatusSaysALaterSessionsCommandLineIsNotSeen(t *testing.T) {
	for _, tc := range []struct {
		name, file, text string
		refused          bool
	}{
		{"no managed settings", "", "", false},
		{"set in the drop-in", "managed-settings.d/skillwire.json", `{"disableSideloadFlags":true}`, true},
		{"set in managed-settings.json", "managed-settings.json", `{"disableSideloadFlags":true}`, true},
		{"control: a string", "managed-settings.json", `{"disableSideloadFlags":"true"}`, false},
		{"control: false", "managed-settings.json", `{"disableSideloadFlags":false}`, false},
		{"set in a file whose name needs escaping", "managed-settings.d/a\x1b[31m.json", `{"disableSideloadFlags":true}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.file != "" {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, tc.file)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := SideloadOf(claude.Places{Managed: dir}).String()
			const later = "a session started later with --plugin-dir, --plugin-url, --mcp-config or --agents "
			want := later + "is not seen here (only the sessions running now are); to have the client refuse those flags, run `sudo skillwire hook install --managed --managed-no-sideload`"
			if tc.refused {
				want = later + "is refused by the client: " + anomaly.QuoteBytes([]byte(filepath.Join(dir, tc.file))) + " sets disableSideloadFlags"
			}
			if s != want || strings.ContainsRune(s, 0x1b) {
				t.Errorf("says %q\nwant %q", s, want)
			}
		})
	}
}
