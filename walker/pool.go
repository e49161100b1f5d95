package walker

import (
	"sync"
	"sync/atomic"

	"github.com/skillwire/skillwire/snapshot"
)

// pool lends helper goroutines to the traversal for reading one directory's
// files. The traversal always works on its own batch too, and a helper that
// arrives after the batch is done leaves without touching it, so no one
// waits for a helper that is busy elsewhere.
type pool struct {
	jobs chan *batch
	wg   sync.WaitGroup
	n    int
}

func newPool(cfg *Config, n int) *pool {
	p := &pool{jobs: make(chan *batch, max(n, 1)), n: n}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			r := newReader()
			for b := range p.jobs {
				if b.join() {
					b.run(r)
					b.active.Done()
				}
			}
		}()
	}
	return p
}

func (p *pool) close() {
	close(p.jobs)
	p.wg.Wait()
}

// chunk is how many files a participant takes at a time.
const chunk = 8

type batch struct {
	w     *cwalk
	dirfd int
	ents  []dirent
	res   []snapshot.Entry
	files []int
	next  atomic.Int64

	mu     sync.Mutex
	closed bool
	active sync.WaitGroup
}

func (b *batch) join() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.active.Add(1)
	return true
}

func (b *batch) run(r *reader) {
	for {
		start := int(b.next.Add(chunk)) - chunk
		if start >= len(b.files) {
			return
		}
		for _, i := range b.files[start:min(start+chunk, len(b.files))] {
			r.file(b.w, b.dirfd, b.ents[i].name, false, nil, &b.res[i])
		}
	}
}

// readFiles fills res[i] for each i in files; dirfd stays open until every
// participant is done with it.
func (w *cwalk) readFiles(dirfd int, ents []dirent, res []snapshot.Entry, files []int) {
	if len(files) == 0 {
		return
	}
	p := w.s.pool
	b := &batch{w: w, dirfd: dirfd, ents: ents, res: res, files: files}
	for range min(p.n, (len(files)-1)/chunk) {
		select {
		case p.jobs <- b:
		default: // every helper is busy: do not wait for one
		}
	}
	b.run(w.st.rd)
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.active.Wait()
}
