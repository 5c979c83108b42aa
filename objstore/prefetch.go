package objstore

import (
	"context"
	"io"
	"sync"
)

// Prefetch reads a sequence of range sets in order — the column chunks of
// each row group a reader will decode, or the pages a filter keeps — at
// most ahead sets beyond the one last returned by Next, so that the next
// set arrives while the caller works on the current one, and memory holds
// at most ahead+1 sets. It is not safe for concurrent use.
type Prefetch struct {
	src     RangeSource
	ctx     context.Context
	cancel  context.CancelFunc
	sets    [][]Range
	ahead   int
	next    int // the set Next returns
	started int // sets started so far
	results []chan prefetched
	wg      sync.WaitGroup
}

type prefetched struct {
	bufs [][]byte
	err  error
}

// NewPrefetch starts fetching the first max(ahead, 1) sets of ranges from src.
// ahead < 0 means 0 (no read-ahead). Close it to cancel what is in flight.
func NewPrefetch(ctx context.Context, src RangeSource, sets [][]Range, ahead int) *Prefetch {
	ctx, cancel := context.WithCancel(ctx)
	p := &Prefetch{src: src, ctx: ctx, cancel: cancel, sets: sets, ahead: max(ahead, 0),
		results: make([]chan prefetched, len(sets))}
	p.fill()
	return p
}

// PrefetchDepth returns how many sets a reader should fetch ahead for
// src: its [Options.Prefetch] when src is a [*Source], else the default.
func PrefetchDepth(src RangeSource) int {
	if s, ok := src.(*Source); ok {
		return s.opts.Prefetch
	}
	return 2
}

// fill starts the sets that may be in flight: while set next-1 is in use,
// sets up to next-1+ahead, and at least set next so that Next can wait
// for it.
func (p *Prefetch) fill() {
	for p.started < len(p.sets) && p.started < max(p.next+1, p.next+p.ahead) {
		i := p.started
		p.started++
		ch := make(chan prefetched, 1)
		p.results[i] = ch
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			bufs, err := p.src.ReadRanges(p.ctx, p.sets[i])
			ch <- prefetched{bufs, err}
		}()
	}
}

// Next waits for the next set and returns its bytes, one slice per range,
// and starts fetching the set ahead sets beyond it. After the last set it
// returns io.EOF.
func (p *Prefetch) Next() ([][]byte, error) {
	if p.next >= len(p.sets) {
		return nil, io.EOF
	}
	var r prefetched
	select {
	case r = <-p.results[p.next]:
	case <-p.ctx.Done():
		return nil, p.ctx.Err()
	}
	p.results[p.next] = nil
	p.next++
	if r.err == nil {
		p.fill()
	}
	return r.bufs, r.err
}

// Close cancels the fetches in flight and waits for them to end.
func (p *Prefetch) Close() {
	p.cancel()
	p.wg.Wait()
}
