package reconcile

import (
	"errors"
	"io/fs"

	"github.com/skillwire/skillwire/auditlog"
)

// ReadSources reads the log of every scope once. Scopes sharing one log
// ($SKILLWIRE_AUDIT_LOG) make one source speaking for each of them. A log
// that does not exist yet is empty. skipped counts the lines the logs hold
// that are not valid entries. An error is auditlog's, unwrapped. So its
// sentinel and its message reach the caller as they are.
func ReadSources(scopes []auditlog.Scope, o auditlog.Options) (src []Source, skipped int, err error) {
	byLog := map[string]int{}
	for _, sc := range scopes {
		if i, ok := byLog[sc.Log]; ok {
			src[i].Scopes = append(src[i].Scopes, sc)
			continue
		}
		l, err := auditlog.Read(sc.Log, o)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			l = &auditlog.Log{}
		case err != nil:
			return nil, 0, err
		}
		skipped += l.SkippedLines()
		byLog[sc.Log] = len(src)
		src = append(src, Source{Entries: l.Entries, Scopes: []auditlog.Scope{sc}, ProjectLog: sc.ProjectLog})
	}
	return src, skipped, nil
}
