//go:build e2e

package e2e

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/pluginrecord"
)

// copyRefusal is what the bundle logs when a managed plugin's folder no
// longer hashes to its recorded copyHash. It was seen in the bundle, in the
// load of a hooks module. It is never logged for the plugin here.
const copyRefusal = "is not treated as the organization's, and does not load: its folder is not the copy its install record holds"

// A cached plugin copy that no longer matches its install's copyHash is told
// (issue #22). Scan and status exit 3. Every session start tells it to the
// model and counts it for the person while it stands.
//
// Managed settings enable a plugin from a remote marketplace. The client
// installs it and records a copyHash. skillwire recomputes it from the
// folder, the client's user id and the marketplace's source. That is the
// client's own hash, and nothing is told. Then a byte of the cached copy
// changes. The client still loads the plugin: it checks the copyHash only
// where it loads a hooks module. skillwire tells "its files differ from what
// Claude Code installed (copyHash)". Control: the unedited copy loads and
// nothing is told. Neither its record nor the client's .links_materialized
// stamp is told. The managed drop-in is the world's, read as /etc/claude-code
// (ClaudeManaged).
func TestTheClientsCopyHashIsRecomputedAndAMismatchIsTold(t *testing.T) {
	w := NewWorld(t)
	w.TrustProject()
	w.Install()
	url, env := gitMarketplace(t, w)
	// The source's keys out of order: the client's canonical JSON sorts them.
	w.Write("managed/managed-settings.d/skillwire-e2e-copyhash.json", `{"extraKnownMarketplaces":{"mkt":{"source":{"source":"url","url":"`+url+`/marketplace.json"}}},"enabledPlugins":{"plug@mkt":true}}`)

	// The headless install adds the marketplace at one start and fetches the
	// plugin at the next. It fetches in the background, only with
	// non-essential traffic on. So each session waits for it with a Bash
	// sleep. Those runs' logs hold failed requests to the client's own
	// servers, so they are not judged. (CLAUDE_CODE_SYNC_PLUGIN_INSTALL
	// installs before the session, but records no copyHash.)
	for range 2 {
		m, err := StartModel([]Reply{Call("Bash", map[string]any{"command": "sleep 3", "description": "wait for the install"})}, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.ClaudeManaged(m, Run{Prompt: "hello", Args: []string{"--dangerously-skip-permissions"},
			Env: append([]string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=", "IS_SANDBOX=1"}, env...)})
		m.Close()
	}
	rec := installRecord(t, w)
	if rec.CopyHash == "" || rec.Version != "1.0.0" {
		t.Fatalf("the client recorded no copyHash for a managed plugin of a remote marketplace: %+v", rec)
	}
	digest, err := pluginrecord.CopyDigest(rec.InstallPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pluginrecord.CopyHash(userID(t, w), "plug@mkt", []byte(`{"source":"url","url":"`+url+`/marketplace.json"}`), digest)
	if err != nil || got != rec.CopyHash {
		t.Fatalf("recomputed copyHash %s (%v), the client wrote %s", got, err, rec.CopyHash)
	}

	t.Run("control: the installed copy loads and nothing is told", func(t *testing.T) {
		m := model(t, nil)
		r := w.ClaudeManaged(m, Run{Prompt: "hello", Env: env})
		noTrouble(t, r)
		if strings.Contains(r.Debug, copyRefusal) || !m.Sent("plug:ps") {
			t.Errorf("the client did not load its own copy (plug:ps listed to the model: %v)", m.Sent("plug:ps"))
		}
		if lines := scanRecord(t, w); len(lines) != 0 {
			t.Errorf("skillwire tells the client's own copy: %q", lines)
		}
		if m.Sent(recordWords) || strings.Contains(r.Debug, recordNotice) {
			t.Errorf("the session start tells the client's own copy as differing from its record")
		}
		// The client stamps the version folder it installed
		// (.links_materialized, its time in it). It may do so after skillwire
		// observed it: the stamp is its bookkeeping. Here skillwire observes
		// the folder without it, then the client's own stamp is put back. The
		// next session tells no change.
		stamp := filepath.Join(rec.InstallPath, ".links_materialized")
		b, err := os.ReadFile(stamp)
		if err != nil {
			t.Fatalf("the client wrote no .links_materialized into %s: the premise changed (%v)", rec.InstallPath, err)
		}
		if err := os.Remove(stamp); err != nil {
			t.Fatal(err)
		}
		w.MustSkillwire([]int{0, 3}, "scan", "--update")
		if err := os.WriteFile(stamp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m = model(t, nil)
		r = w.ClaudeManaged(m, Run{Prompt: "hello", Env: env})
		noTrouble(t, r)
		if a := advisory(m); strings.Contains(a, "plug@mkt") || strings.Contains(r.Debug, "systemMessage") {
			t.Errorf("the session after the client's stamp tells the plugin (the stamp is not content): %q", a)
		}
	})

	t.Run("a byte changed in the cache still loads and is told", func(t *testing.T) {
		skill := filepath.Join(rec.InstallPath, "skills", "ps", "SKILL.md")
		if err := os.WriteFile(skill, []byte("---\nname: ps\ndescription: a plugin skill\n---\nthe plugin body, edited\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		m := model(t, nil)
		r := w.ClaudeManaged(m, Run{Prompt: "hello", Env: env})
		// The client compares a copy with its copyHash only where it loads a
		// hooks module. So a plugin of skills loads edited, unrefused.
		if strings.Contains(r.Debug, copyRefusal) || !m.Sent("plug:ps") {
			t.Errorf("the client refused the edited copy of a plugin without a hooks module: the premise changed")
		}
		want := `its files differ from what Claude Code installed (copyHash)`
		if lines := scanRecord(t, w); len(lines) != 1 || !strings.Contains(lines[0], want) {
			t.Errorf("scan's install_record: %q, want one line telling %q", lines, want)
		}
		if out, code := w.Skillwire("status", "--json"); code != 3 || !strings.Contains(out, want) {
			t.Errorf("status: exit %d, want 3 telling the copyHash:\n%s", code, out)
		}
		// The session start tells it to the model and counts it for the
		// person, in this session and the next. It stands while the copy
		// differs.
		for i := range 2 {
			m := model(t, nil)
			r := w.ClaudeManaged(m, Run{Prompt: "hello", Env: env})
			noTrouble(t, r)
			if !m.Sent(recordWords+`, told every session while it stands: plugin "plug@mkt"`) || !m.Sent(want) {
				t.Errorf("session %d after the edit: the model was not told the copy differs from its record: %q", i+1, advisory(m))
			}
			if !strings.Contains(r.Debug, recordNotice) {
				t.Errorf("session %d after the edit: the person's line does not count it", i+1)
			}
		}
	})
}

// recordWords open the advisory's line of a plugin that differs from its
// install record. recordNotice is the person's count of one.
const (
	recordWords  = "- differs from Claude Code's install record"
	recordNotice = "1 plugin that differs from Claude Code's install record"
)

// install is the one install of plug@mkt installed_plugins.json records.
type install struct {
	InstallPath, Version, CopyHash, GitCommitSha string
}

func installRecord(t *testing.T, w *World) install {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.Config, "plugins", "installed_plugins.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Plugins map[string][]install }
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Plugins["plug@mkt"]) != 1 {
		t.Fatalf("installed_plugins.json holds no one install of plug@mkt (%v):\n%s", err, b)
	}
	return doc.Plugins["plug@mkt"][0]
}

// userID is the client's own user id, from its .claude.json.
func userID(t *testing.T, w *World) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.Config, ".claude.json"))
	var doc struct{ UserID string }
	if err != nil || json.Unmarshal(b, &doc) != nil || doc.UserID == "" {
		t.Fatalf("the client's .claude.json holds no userID (%v)", err)
	}
	return doc.UserID
}

// scanRecord is what `skillwire scan --json` tells of the install record.
func scanRecord(t *testing.T, w *World) []string {
	t.Helper()
	out := w.MustSkillwire([]int{0, 3}, "scan", "--json")
	var doc struct {
		InstallRecord []string `json:"install_record"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("scan --json: %v\n%s", err, out)
	}
	return doc.InstallRecord
}

// gitMarketplace serves a marketplace over https on loopback. Its one plugin,
// plug 1.0.0 with the skill ps, is a git repository. git http-backend serves
// it, as the client clones shallow and git's dumb http cannot serve that. It
// returns the server's URL and the environment that makes the client and its
// git trust the certificate.
func gitMarketplace(t *testing.T, w *World) (string, []string) {
	t.Helper()
	work := filepath.Join(w.Root, "plugwork")
	w.Write("plugwork/.claude-plugin/plugin.json", `{"name":"plug","version":"1.0.0"}`)
	w.Write("plugwork/skills/ps/SKILL.md", "---\nname: ps\ndescription: a plugin skill\n---\nthe plugin body\n")
	repo := filepath.Join(w.Root, "srv", "plug.git")
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com",
			"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(work, "init", "-q", "-b", "main")
	git(work, "add", ".")
	git(work, "commit", "-q", "-m", "plug 1.0.0")
	git(w.Root, "clone", "-q", "--bare", work, repo)
	var url string
	mux := http.NewServeMux()
	mux.Handle("/git/", &cgi.Handler{Path: "/usr/lib/git-core/git-http-backend", Root: "/git",
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(repo), "GIT_HTTP_EXPORT_ALL=1"}})
	mux.HandleFunc("/marketplace.json", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write([]byte(`{"name":"mkt","owner":{"name":"e2e"},"plugins":[{"name":"plug","source":{"source":"url","url":"` + url + `/git/plug.git"}}]}`))
	})
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	url = srv.URL
	ca := w.Write("marketplace-ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	return url, []string{"NODE_EXTRA_CA_CERTS=" + ca, "GIT_SSL_CAINFO=" + ca}
}
