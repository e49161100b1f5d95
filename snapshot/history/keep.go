package history

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/content"
	"github.com/skillwire/skillwire/walker"
)

// Want is one version to keep.
type Want struct {
	ID       string
	Manifest *snapshot.Manifest // complete (never partial)
	How      baseline.How
	Verdict  string
	Reviewer string
}

// verdictOn is the record's verdict when it is bound to exactly d.
func verdictOn(rec *baseline.Record, d snapshot.Hash) *baseline.Verdict {
	if rec == nil || rec.Verdict == nil || rec.Verdict.Digest == nil || *rec.Verdict.Digest != d {
		return nil
	}
	return rec.Verdict
}

// Pending is a set of versions whose objects are written and durable, to be
// recorded in the store. Its batch holds the content store's shared lock
// until Close. So collection cannot remove an object it found already kept
// before the versions using it are recorded.
type Pending struct {
	store    *content.Store
	batch    *content.Batch
	versions []baseline.Version
	ids      []string
}

// Prepare writes the staged content of wants, not already kept, into the
// content store under stateDir, in one pack. A version is restorable when
// it has no anomaly and every file's content is kept. With no wants it
// does nothing: an unchanged scan writes nothing. On a content store
// failure the versions are still returned, not restorable, with the error.
// Keeping content never stops a delivery from being recorded.
func Prepare(stateDir string, stage *Stage, wants []Want, now time.Time) (*Pending, error) {
	p := &Pending{}
	if len(wants) == 0 {
		return p, nil
	}
	var err error
	if p.store, err = content.Open(stateDir, content.Options{Create: true}); err == nil {
		if p.batch, err = p.store.NewBatch(); err != nil {
			p.store.Close()
			p.store = nil
		}
	}
	var puts []snapshot.Hash
	queued := map[snapshot.Hash]bool{}
	for _, w := range wants {
		d, derr := w.Manifest.Digest()
		if derr != nil || w.Manifest.Partial {
			continue
		}
		if p.batch != nil {
			puts = p.queue(w.Manifest, stage, queued, puts)
		}
		p.ids = append(p.ids, w.ID)
		p.versions = append(p.versions, baseline.Version{Digest: d, At: now, How: w.How, Verdict: w.Verdict,
			Reviewer: w.Reviewer, Manifest: *w.Manifest})
	}
	failed := p.putAll(puts, stage)
	for i := range p.versions {
		p.versions[i].Restorable = p.batch != nil && p.whole(&p.versions[i].Manifest, stage, failed)
	}
	if p.batch != nil {
		if cerr := p.batch.Commit(); cerr != nil {
			err = cerr
			for i := range p.versions {
				p.versions[i].Restorable = false
			}
		}
	}
	return p, err
}

// queue appends the staged content of m's files not yet kept nor queued.
func (p *Pending) queue(m *snapshot.Manifest, stage *Stage, queued map[snapshot.Hash]bool, puts []snapshot.Hash) []snapshot.Hash {
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.Kind != snapshot.File || queued[e.Hash] || p.store.Has(e.Hash) {
			continue
		}
		if _, ok := stage.Get(e.Hash); ok {
			queued[e.Hash] = true
			puts = append(puts, e.Hash)
		}
	}
	return puts
}

// putAll puts the queued objects from GOMAXPROCS goroutines, since
// compression is the cost. It returns the keys that failed.
func (p *Pending) putAll(puts []snapshot.Hash, stage *Stage) map[snapshot.Hash]bool {
	var mu sync.Mutex
	failed := map[snapshot.Hash]bool{}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(puts)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(puts) {
					return
				}
				data, _ := stage.Get(puts[i])
				if err := p.batch.Put(puts[i], data); err != nil {
					mu.Lock()
					failed[puts[i]] = true
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return failed
}

// whole reports whether m can be restored: only directories and files,
// every file's content kept or put.
func (p *Pending) whole(m *snapshot.Manifest, stage *Stage, failed map[snapshot.Hash]bool) bool {
	for i := range m.Entries {
		e := &m.Entries[i]
		switch e.Kind {
		case snapshot.Dir:
		case snapshot.File:
			if failed[e.Hash] {
				return false
			}
			if _, ok := stage.Get(e.Hash); !ok && !p.store.Has(e.Hash) {
				return false
			}
		default: // a link or an anomaly: never restored
			return false
		}
	}
	return true
}

// Record keeps the prepared versions, inside the caller's transaction. A
// version the candidate's record holds a verdict on carries it. It is then
// never collected. One vouched for by auto-accept says so.
func (p *Pending) Record(tx *baseline.Tx) error {
	for i, v := range p.versions {
		rec, err := tx.Record(p.ids[i])
		if err != nil {
			return err
		}
		if rv := verdictOn(rec, v.Digest); rv != nil && v.Verdict == "" {
			v.Verdict, v.Reviewer = rv.Verdict, rv.Reviewer
			if strings.HasPrefix(rv.Reviewer, "auto:") {
				v.How = baseline.HowAutoAccept
			}
		}
		if err := tx.Versions().Keep(p.ids[i], v); err != nil {
			return err
		}
	}
	return nil
}

// Kept reports whether anything is to be recorded.
func (p *Pending) Kept() bool { return len(p.versions) > 0 }

// Close releases the content store; call it after Record's transaction.
func (p *Pending) Close() error {
	var err error
	if p.batch != nil {
		err = p.batch.Close()
	}
	if p.store != nil {
		err = errors.Join(err, p.store.Close())
	}
	return err
}

// collect applies retention: it drops the versions content.Plan chooses.
// Those are over capBytes, past the last content.DefaultPerCandidate of
// each candidate; never verdict and first-use versions. Each candidate's
// drops go in its own short transaction. Then it removes the objects no
// kept version uses. The store is opened for each transaction and closed
// after it. So a session start never waits for a collection. Collection
// never waits either. A busy store (opened for at most collectWait) or an
// open batch stops it as Busy, with what was done so far.
func collect(opts baseline.Options, capBytes int64) (content.Collected, error) {
	opts.LockTimeout, opts.Create = collectWait, false
	var infos []content.VersionInfo
	err := baseline.View(opts, func(tx *baseline.Tx) error {
		for _, id := range tx.Versions().IDs() {
			vs, err := tx.Versions().Of(id)
			if err != nil {
				return err
			}
			for i := range vs {
				infos = append(infos, infoOf(id, &vs[i]))
			}
		}
		return nil
	})
	if errors.Is(err, baseline.ErrBusy) {
		return content.Collected{Busy: true}, nil
	}
	if err != nil {
		return content.Collected{}, err
	}
	drop := content.Plan(infos, capBytes, content.DefaultPerCandidate)
	if len(drop) == 0 {
		return content.Collected{}, nil
	}
	seen := make(map[content.VersionRef]time.Time, len(infos))
	for _, in := range infos {
		seen[in.Ref] = in.Kept
	}
	for _, ref := range drop {
		// Dropped only as planned: one given a verdict or kept again since
		// the plan stays. Versions.Drop checks, in its own transaction.
		err := baseline.Update(opts, func(tx *baseline.Tx) error { return tx.Versions().Drop(ref.Candidate, ref.Digest, seen[ref]) })
		if errors.Is(err, baseline.ErrBusy) {
			return content.Collected{Busy: true}, nil
		}
		if err != nil {
			return content.Collected{}, err
		}
	}
	cs, err := content.Open(opts.Dir, content.Options{})
	if errors.Is(err, content.ErrAbsent) {
		return content.Collected{}, nil
	}
	if err != nil {
		return content.Collected{}, err
	}
	defer cs.Close()
	return cs.Collect(func() (func(snapshot.Hash) bool, error) {
		live := make(map[snapshot.Hash]bool)
		err := baseline.View(opts, func(tx *baseline.Tx) error {
			for _, id := range tx.Versions().IDs() {
				vs, err := tx.Versions().Of(id)
				if err != nil {
					return err
				}
				for _, v := range vs {
					for _, e := range v.Manifest.Entries {
						if e.Kind == snapshot.File {
							live[e.Hash] = true
						}
					}
				}
			}
			return nil
		})
		if errors.Is(err, baseline.ErrBusy) {
			return nil, fmt.Errorf("%w: %w", content.ErrBusy, err)
		}
		if err != nil {
			return nil, fmt.Errorf("history: listing kept objects: %w", err)
		}
		return func(h snapshot.Hash) bool { return live[h] }, nil
	})
}

// collectWait is how long collection tries the store: once, and once more.
// The store polls every 50ms. Then it yields.
const collectWait = time.Millisecond

// infoOf describes a version for content.Plan. An object's bytes are its
// content's size, an upper bound of what compression leaves on disk.
func infoOf(id string, v *baseline.Version) content.VersionInfo {
	info := content.VersionInfo{Ref: content.VersionRef{Candidate: id, Digest: v.Digest}, Kept: v.At, Protected: v.Protected(),
		Bytes: int64(64 * len(v.Manifest.Entries))}
	for _, e := range v.Manifest.Entries {
		if e.Kind == snapshot.File {
			info.Objects = append(info.Objects, content.Object{Key: e.Hash, Bytes: e.Size})
		}
	}
	return info
}

// Attach makes cfg's walk stage what it reads, for keeping after delivery.
// known, when not nil, names content the store keeps already (its Has).
// That content is not copied again. Should it be collected before the
// versions are written, those versions are recorded as not restorable.
func Attach(cfg *walker.Config, known ...func(snapshot.Hash) bool) *Stage {
	s := NewStage(0)
	if len(known) > 0 {
		s.known = known[0]
	}
	cfg.Keep = s
	return s
}
