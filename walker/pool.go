package walker

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillwire/skillwire/snapshot"
)

// pool lends helper goroutines to the traversals for reading files. A
// traversal hands each directory's files over as a batch and goes on
// listing. Helpers take chunks of the oldest open batch. A traversal keeps
// at most window batches in flight. Past that it reads what is left of its
// oldest batch itself, and waits for the helpers still in it. Meanwhile it
// reads ahead in its newer batches. So no one waits for a helper that is
// busy elsewhere. The descriptors held stay bounded by depth plus the
// window. Both sides spin briefly (spin) before they park. A handoff per
// directory that parks and wakes a goroutine cost more than the directory.
type pool struct {
	mu     sync.Mutex
	cond   sync.Cond
	open   []*batch // with chunks not yet taken, oldest first
	closed bool
	n      int
	wg     sync.WaitGroup
	// nopen is len(open) and stop is closed, both set under mu. A helper
	// that spins before it parks reads them without it.
	nopen atomic.Int32
	stop  atomic.Bool
}

// window is how many batches one traversal keeps in flight.
const window = 4

// chunk is how many files a participant takes at a time.
const chunk = 8

func newPool(n int) *pool {
	p := &pool{n: n}
	p.cond.L = &p.mu
	for range n {
		p.wg.Add(1)
		go p.help()
	}
	return p
}

func (p *pool) help() {
	defer p.wg.Done()
	r := newReader()
	p.mu.Lock()
	for {
		if len(p.open) == 0 && !p.closed {
			// The traversal offers its next batch within microseconds.
			// Waiting for it awake costs less than parking and being woken.
			// Issue 23 saw a futex and several nanosleeps per directory. The
			// helper was late by a timer slack each time.
			p.mu.Unlock()
			spin(func() bool { return p.nopen.Load() > 0 || p.stop.Load() })
			p.mu.Lock()
		}
		for len(p.open) == 0 && !p.closed {
			p.cond.Wait()
		}
		if len(p.open) == 0 {
			p.mu.Unlock()
			return
		}
		b := p.open[0]
		b.active.Add(1) // under mu: withdraw, then Wait, sees every joiner
		b.busy.Add(1)
		p.mu.Unlock()
		b.run(r)
		b.busy.Add(-1)
		b.active.Done()
		p.mu.Lock()
		p.withdraw(b) // every chunk is taken: nothing left to join
	}
}

// offer opens b to the helpers.
func (p *pool) offer(b *batch) {
	if p.n == 0 {
		return
	}
	p.mu.Lock()
	p.open = append(p.open, b)
	p.nopen.Store(int32(len(p.open)))
	p.mu.Unlock()
	for range min(p.n, (len(b.files)+chunk-1)/chunk) {
		p.cond.Signal()
	}
}

// withdraw closes b to helpers; p.mu is held.
func (p *pool) withdraw(b *batch) {
	if i := slices.Index(p.open, b); i >= 0 {
		p.open = slices.Delete(p.open, i, i+1)
		p.nopen.Store(int32(len(p.open)))
	}
}

func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	p.stop.Store(true)
	p.mu.Unlock()
	p.cond.Broadcast()
	p.wg.Wait()
}

// batch is the regular files of one listed directory. out[i] is filled
// in place for each i in files.
type batch struct {
	w      *cwalk
	dir    *dirRef
	ents   []dirent
	files  []int
	out    []snapshot.Entry
	ids    []Ident // out's identities, when the walk keeps them
	next   atomic.Int64
	active sync.WaitGroup
	busy   atomic.Int32 // the helpers in active, read without waiting
}

// spinFor bounds how long a participant spins, yielding, before it parks.
// It waits for another to hand it work or finish a chunk. That is about a
// directory's work, and little CPU when the other goroutine is late.
const spinFor = 50 * time.Microsecond

// spin yields until ready reports true or spinFor has passed.
func spin(ready func() bool) {
	start := time.Now()
	for !ready() && time.Since(start) < spinFor {
		runtime.Gosched()
	}
}

// left reports whether b has chunks not yet taken.
func (b *batch) left() bool { return int(b.next.Load()) < len(b.files) }

func (b *batch) run(r *reader) {
	for b.chunk(r) {
	}
}

// chunk reads the next chunk of b not yet taken, reporting whether there
// was one.
func (b *batch) chunk(r *reader) bool {
	start := int(b.next.Add(chunk)) - chunk
	if start >= len(b.files) {
		return false
	}
	for i := start; i < min(start+chunk, len(b.files)); i++ {
		if b.w.s.done() {
			// Past the deadline: left unread (Kind 0), and the walk is
			// partial.
			b.w.partial.Store(true)
			continue
		}
		b.read(r, i)
	}
	return true
}

// read observes the batch's k-th file. It uses the hash cache when that
// has the file's identity. Else it reads the file, and the cache learns
// its hash.
func (b *batch) read(r *reader, k int) {
	i := b.files[k]
	id := b.w.known(r, b.dir.fd, b.dir.dev, b.ents[i].name, false, nil, &b.out[i], nil)
	// A hash reused or read with an identity is of that identity: the
	// cache's, or the fstat after the read (reader.file). With none, the
	// identity is empty, as before.
	if b.ids != nil && b.out[i].Kind == snapshot.File {
		b.ids[i] = id.ident()
	}
}

// submit puts b in flight. The traversal holds a reference on b's
// directory for it until it is retired.
// While every worker walks a candidate of its own, its traversal reads a
// batch at once. Handing it over would only add wake-ups: issue 23
// counted 2,653 nanosleep and 294 futex calls in one session start.
func (w *cwalk) submit(b *batch) {
	if w.s.pool.n == 0 || int(w.s.walking.Load()) >= w.s.cfg.workers() {
		b.run(w.st.rd)
		return
	}
	b.dir.refs++
	w.inflight = append(w.inflight, b)
	w.s.pool.offer(b)
	for len(w.inflight) > window || w.s.pool.n == 0 && len(w.inflight) > 0 {
		w.retire()
	}
}

// retire finishes the oldest batch in flight. It reads what no helper
// took, waits for the helpers still reading it, and lets go of its
// directory.
func (w *cwalk) retire() {
	b := w.inflight[0]
	w.inflight[0] = nil
	w.inflight = w.inflight[1:]
	b.run(w.st.rd)
	p := w.s.pool
	if p.n > 0 {
		p.mu.Lock()
		p.withdraw(b)
		p.mu.Unlock()
		// While helpers finish their chunks of b, read ahead in the next
		// batches in flight rather than park.
		for b.busy.Load() > 0 {
			if !w.readAhead() {
				spin(func() bool { return b.busy.Load() == 0 })
				break
			}
		}
		b.active.Wait()
	}
	b.dir.release()
}

// readAhead reads one chunk of the oldest batch in flight that has one
// left. It reports whether there was one.
func (w *cwalk) readAhead() bool {
	for _, b := range w.inflight {
		if b.left() {
			b.chunk(w.st.rd)
			return true
		}
	}
	return false
}

// drain retires every batch in flight.
func (w *cwalk) drain() {
	for len(w.inflight) > 0 {
		w.retire()
	}
}
