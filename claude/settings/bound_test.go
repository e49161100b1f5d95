package settings

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
)

// TestTheWatchAndTheHookReadSettingsUpToOneBound: a settings file the
// watch holds as oversize is one no hook reader acts on either. A 2 MiB
// file was once oversize to the watch but parsed by the hooks-off reader.
func TestTheWatchAndTheHookReadSettingsUpToOneBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		read bool
	}{
		{"exactly the bound", config.MaxJSON, true},
		{"one byte over", config.MaxJSON + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := `{"disableAllHooks":true,"env":{"A":"1"},"x":"`
			data := []byte(head + strings.Repeat("a", tc.size-len(head)-2) + `"}`)
			if len(data) != tc.size {
				t.Fatalf("built %d bytes, want %d", len(data), tc.size)
			}
			dir := t.TempDir()
			cfg, project := filepath.Join(dir, "cfg"), filepath.Join(dir, "p")
			for _, d := range []string{cfg, filepath.Join(project, ".claude")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, "settings.json"), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}

			ex := config.SettingsSubset(data, int64(len(data)))
			if watched := !slices.Contains(ex.Anomalies, config.AnomalyOversize); watched != tc.read {
				t.Errorf("the watch read it: %v, want %v", watched, tc.read)
			}
			off := HooksOffIn(claude.Places{Config: cfg})
			if listed := len(off) == 1; listed != tc.read {
				t.Errorf("the hooks-off reader listed it: %v, want %v", listed, tc.read)
			}
			keys, err := ProjectEnvKeys(project)
			if got := slices.Equal(keys, []string{"A"}) && err == nil; got != tc.read {
				t.Errorf("the hook read the project's env: %q %v, want read %v", keys, err, tc.read)
			}
			_, err = Open(cfg)
			if err != nil && !errors.Is(err, ErrTooLarge) {
				t.Fatal(err)
			}
			if opened := err == nil; opened != tc.read {
				t.Errorf("hook install opened it: %v, want %v", opened, tc.read)
			}
		})
	}
}
