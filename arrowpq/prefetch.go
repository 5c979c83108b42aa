package arrowpq

import "sync"

// Reading pages ahead (column.ReaderOptions.Prefetch).
//
// With Parallelism > 1 a leaf reader decompresses the next pages of a
// large column chunk (column.DefaultPrefetchMinBytes compressed or more)
// on another goroutine while it decodes the current one: a file of few
// columns, whose one large column is all the work, then uses a second
// core (the strings dataset: one text column is ~80% of the bytes). The
// goroutines come from one pool per Reader of Parallelism slots; a chunk
// that finds none free is read serially, so a wide file does not start a
// goroutine per column chunk. On the pipeline only the leaves of a field
// that is more than its decoders' share of the read do (pipeline.readAhead):
// with fields of similar size the workers are busy without it. Each chunk
// read ahead holds prefetchPages+1 uncompressed pages.

// prefetchPages is how many pages a chunk is read ahead of its decoder.
const prefetchPages = 2

// prefetchPool runs the read-ahead tasks of one Reader.
type prefetchPool struct {
	slots chan struct{}
	wg    sync.WaitGroup
}

func newPrefetchPool(n int) *prefetchPool {
	return &prefetchPool{slots: make(chan struct{}, n)}
}

// spawn runs task on a new goroutine when a slot is free; false when none
// is.
func (p *prefetchPool) spawn(task func()) bool {
	select {
	case p.slots <- struct{}{}:
	default:
		return false
	}
	p.wg.Add(1)
	go func() {
		defer func() {
			<-p.slots
			p.wg.Done()
		}()
		task()
	}()
	return true
}

// wait waits for every task; the leaf readers stopped theirs
// (column.Reader.Close).
func (p *prefetchPool) wait() { p.wg.Wait() }
