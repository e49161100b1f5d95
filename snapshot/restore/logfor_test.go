package restore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/auditlog"
)

// TestRestoreMakesNoAuditLogInTheRepository: a restore of a project's
// candidate writes its rollback entries to the project's own log only when
// that log is there. Else they go to the global log, in the configuration
// directory, never to a new .claude/.audit-log.jsonl in the repository
// (issue 32).
func TestRestoreMakesNoAuditLogInTheRepository(t *testing.T) {
	dir := t.TempDir()
	cfg, project := filepath.Join(dir, "cfg"), filepath.Join(dir, "repo/.claude")
	must(t, os.MkdirAll(project, 0o755))
	global := auditlog.Scope{Log: cfg + "/" + auditlog.FileName}
	proj := auditlog.Scope{Log: project + "/" + auditlog.FileName, ProjectLog: true}
	if got := LogFor(proj, global); got != "" {
		t.Errorf("no configuration directory: log %q, want none", got)
	}
	must(t, os.MkdirAll(cfg, 0o755))
	if got := LogFor(proj, global); got != global.Log {
		t.Errorf("no project log: log %q, want the global %q", got, global.Log)
	}
	if got := LogFor(global, global); got != global.Log {
		t.Errorf("a global candidate: log %q, want %q", got, global.Log)
	}
	must(t, os.WriteFile(proj.Log, nil, 0o644))
	if got := LogFor(proj, global); got != proj.Log {
		t.Errorf("the project's log is there: log %q, want it, %q", got, proj.Log)
	}
}
