package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/internal/testtree"
)

// recordStart is newStart with a configuration directory. Its
// installed_plugins.json records plug@mkt at its cache folder 1.0.0. The
// version recorded is record, raw JSON string text.
func recordStart(t *testing.T, record string) Start {
	s := newStart(t)
	cfg := filepath.Join(filepath.Dir(s.Store.Dir), "cfg")
	testtree.Make(t, cfg, "plugins/cache/mkt/plug/1.0.0/.claude-plugin/plugin.json={\"name\":\"plug\",\"version\":\"1.0.0\"}")
	writeRecord(t, cfg, record)
	s.Places = claude.Places{Config: cfg}
	return s
}

func writeRecord(t *testing.T, cfg, version string) {
	t.Helper()
	rec := fmt.Sprintf(`{"version":2,"plugins":{"plug@mkt":[{"installPath":%q,"version":"%s"}]}}`, cfg+"/plugins/cache/mkt/plug/1.0.0", version)
	must(t, os.WriteFile(filepath.Join(cfg, "plugins", "installed_plugins.json"), []byte(rec), 0o644))
}

// runBoth runs s, delivered, and returns what the model and the person
// were told.
func runBoth(t *testing.T, s Start) (text, notice string) {
	t.Helper()
	_, err := Run(context.Background(), s, func(tx, n string) bool { text, notice = tx, n; return true })
	must(t, err)
	return text, notice
}

// A plugin whose folder disagrees with Claude Code's installed_plugins.json
// is told at the session start. The model gets it escaped, the person
// counted. It is told again at every session while it stands: it is never
// consumed. Each session's fleet events carry it. Once the record and the
// folder agree, nothing is told. Control bytes of the record never get out.
func TestAnInstallRecordFindingIsToldEverySessionWhileItStands(t *testing.T) {
	s := recordStart(t, `9.9.9\u001b[2J\u202e`)
	eventsFile := filepath.Join(s.Store.Dir, "events.ndjson")
	for i := range 3 {
		text, notice := runBoth(t, s)
		want := `- differs from Claude Code's install record, told every session while it stands: plugin "plug@mkt" at "` + s.Places.Config +
			`/plugins/cache/mkt/plug/1.0.0": version "9.9.9\x1b[2J\u202e" is recorded for a folder named "1.0.0"`
		if !strings.Contains(text, want) {
			t.Fatalf("session %d told:\n%s\nwant the line\n%s", i+1, text, want)
		}
		if strings.ContainsAny(text, "\x1b\u202e") || strings.ContainsAny(notice, "\x1b\u202e") {
			t.Fatalf("session %d: a control byte of the record got out: %q", i+1, text)
		}
		if !strings.Contains(notice, "1 plugin that differs from Claude Code's install record") {
			t.Errorf("session %d: the person's line does not count it: %q", i+1, notice)
		}
		b, err := os.ReadFile(eventsFile)
		must(t, err)
		if n := strings.Count(string(b), `"event":"install_record"`); n != 2*(i+1) { // the folder and the manifest both disagree
			t.Errorf("session %d: %d install-record events in the fleet's file, want %d", i+1, n, 2*(i+1))
		}
	}
	writeRecord(t, s.Places.Config, "1.0.0")
	if text, notice := runBoth(t, s); text != "" || notice != "" {
		t.Errorf("the record agrees with the folder, yet told %q / %q", text, notice)
	}
}

// Without a usable store the findings are still told. They are about the
// disk, not about what the store holds.
func TestAnInstallRecordFindingIsToldWithoutAStore(t *testing.T) {
	s := recordStart(t, "2.0.0")
	must(t, os.MkdirAll(s.Store.Dir, 0o700))
	must(t, os.Chmod(s.Store.Dir, 0o770)) // untrusted
	var text string
	_, err := Run(context.Background(), s, func(tx, _ string) bool { text = tx; return true })
	if !errors.Is(err, baseline.ErrUntrusted) {
		t.Fatalf("got %v, want untrusted", err)
	}
	if !strings.Contains(text, `version "2.0.0" is recorded for a folder named "1.0.0"`) {
		t.Errorf("told without a store:\n%s", text)
	}
}

// A check that fails or does not finish in time is told as not checked.
// Unknown is a finding, never nothing to say.
func TestAnInstallRecordNotCheckedIsToldNotSilent(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	stuck := make(chan struct{})
	defer close(stuck)
	for name, check := range map[string]func() []config.Fact{
		"late":   func() []config.Fact { <-stuck; return nil },
		"panics": func() []config.Fact { panic("a hostile record") },
	} {
		t.Run(name, func(t *testing.T) {
			c := startRecordCheck(check)
			if name == "panics" {
				<-c.done
			}
			fs, late := c.wait(ended)
			if !late || fs != nil {
				t.Fatalf("wait = %v, %v; want late", fs, late)
			}
			adv := build(Input{Standings: []baseline.Standing{standing("a", baseline.Unchanged)}, InstallRecordLate: late})
			if !strings.Contains(adv.Text, recordLate) || !strings.Contains(adv.Notice, "not checked against Claude Code's install record in time") {
				t.Errorf("a check not done is not told: %q / %q", adv.Text, adv.Notice)
			}
			evs := recordEvents(events.Origin{}, &Input{InstallRecordLate: true}, "/cfg")
			if len(evs) != 1 || evs[0].Unmapped.Skillwire.Check != recordUnchecked {
				t.Errorf("fleet events %+v", evs)
			}
		})
	}
	if fs, late := startRecordCheck(nil).wait(ended); fs != nil || late {
		t.Errorf("no configuration directory: %v, %v; want nothing", fs, late)
	}
}

// Thousands of findings of huge hostile text take a bounded part of the
// advisory. Dangerous ones go first, the rest are counted. A BLOCK is
// still named.
func TestInstallRecordFindingsNeverCrowdOutABlock(t *testing.T) {
	var fs []config.Fact
	for i := range 5000 {
		fs = append(fs, config.RecordFact(fmt.Sprintf("p%d@mkt", i), "/cfg/plugins/cache/mkt/p/"+strings.Repeat("\x1b\u202e", 4096), config.RecordVersionFolder, strings.Repeat("\x00", 1<<12), "1"))
	}
	fs = append(fs, config.Fact{Kind: config.FactNameChanged, Name: fs[0].Name, Command: fs[0].Command, Value: "harmless"})
	fs = append([]config.Fact{fs[len(fs)-1]}, fs[:len(fs)-1]...)
	c := startRecordCheck(func() []config.Fact { return fs })
	<-c.done
	got, late := c.wait(context.Background())
	if late || len(got) != len(fs) || !got[0].Dangerous() || got[len(got)-1].Dangerous() {
		t.Fatalf("wait: %d facts, late %v; want every one, dangerous first", len(got), late)
	}
	sts := []baseline.Standing{standing("evil", baseline.Unchanged, adverse)}
	for i := range 20 {
		sts = append(sts, standing(fmt.Sprintf("n%02d", i), baseline.New))
	}
	adv := build(Input{Standings: sts, InstallRecord: got})
	if len(adv.Text) > hookio.MaxContext {
		t.Fatalf("the advisory is %d bytes, over the client's cap", len(adv.Text))
	}
	if !strings.Contains(adv.Text, `"evil"`) || strings.ContainsAny(adv.Text, "\x00\x1b\u202e") {
		t.Errorf("the BLOCK is crowded out, or a control byte got out")
	}
	if n := strings.Count(adv.Text, "- differs from Claude Code's install record"); n == 0 || n > maxRecordLines {
		t.Errorf("%d findings told, want 1 to %d", n, maxRecordLines)
	}
	if !strings.Contains(adv.Text, "more disagreements of a plugin's folder with Claude Code's install record") {
		t.Errorf("the findings not told are not counted")
	}
	if !strings.Contains(adv.Notice, "5000 plugins that differ from Claude Code's install record") || strings.ContainsFunc(adv.Notice, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		t.Errorf("notice %q", adv.Notice)
	}
}
