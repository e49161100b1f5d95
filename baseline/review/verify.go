package review

import (
	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/lockfile"
	"github.com/skillwire/skillwire/snapshot/findings"
	"github.com/skillwire/skillwire/walker"
)

// treeLimits bound what VerifyFindings reads of one candidate.
var treeLimits = walker.TreeLimits{MaxFiles: findings.MaxFiles, MaxBytes: 64 << 20, MaxDepth: 24}

// VerifyFindings are the content findings of what verify found added or
// changed in the repository: every file of an added candidate, the added
// and modified files of a changed one. A lock keeps no content, so the
// kinds that compare with a previous version are not told; nothing is
// reached through a link. A candidate that cannot be read is unscanned.
func VerifyFindings(repo string, rep *lockfile.Report) []findings.Located {
	var out []findings.Located
	scan := func(ref lockfile.Ref, only map[string]bool) {
		dir := repo + "/" + ref.Root
		if ref.Root == "." {
			dir = repo
		}
		uri := func(p string) string {
			u := ref.Root + "/" + string(ref.Name)
			if ref.Root == "." {
				u = string(ref.Name)
			}
			if p != "" {
				u += "/" + p
			}
			return u
		}
		var files []findings.File
		if ref.Kind == walker.KindDir {
			ts, r, err := walker.ReadTree(dir+"/"+string(ref.Name), walker.TreeConfig{Limits: treeLimits})
			if err != nil || r != 0 {
				out = append(out, findings.Located{URI: uri(""), Finding: findings.Finding{Kind: findings.Unscanned,
					File: anomaly.Escape(ref.Name), Text: `"its files could not be read whole"`}})
				return
			}
			for _, t := range ts {
				if only == nil || only[t.Path] {
					files = append(files, findings.File{Path: []byte(t.Path), Data: t.Data})
				}
			}
		} else if ref.Kind == walker.KindFile {
			reads, err := walker.ReadFiles(dir, ".", []string{string(ref.Name)}, findings.MaxFileBytes*2)
			if err != nil || reads == nil || reads[0].Missing || reads[0].Reason != 0 {
				return // told by verify as anomalous or removed
			}
			files = append(files, findings.File{Path: nil, Data: reads[0].Data})
		}
		for _, f := range files {
			for _, fd := range findings.Scan(f) {
				if f.Path == nil {
					fd.File = anomaly.Escape(ref.Name)
				}
				out = append(out, findings.Located{Finding: fd, URI: uri(string(f.Path))})
			}
		}
	}
	for _, a := range rep.Added {
		scan(a, nil)
	}
	for _, c := range rep.Changed {
		only := map[string]bool{}
		for _, f := range c.Files {
			if f.Change != lockfile.FileRemoved && f.Shown == "" {
				only[string(f.Path)] = true
			}
		}
		scan(c.Ref, only)
	}
	return out
}
