package arrowpq

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// ErrInternal is wrapped by the error a read returns when decoding hit a
// bug in this package (a panic) instead of failing cleanly. Input is
// validated before it is used, so no file should ever produce it: the
// package's fuzz targets, forging campaign and corpus tests fail on it.
// The panic is turned into an error only so that one bad file cannot take
// down a server's other requests; it is never a way to reject input.
var ErrInternal = errors.New("internal error (a bug in arrowpq, please report it)")

// internalError is a recovered panic: its value and the stack where it
// happened.
type internalError struct {
	value any
	stack []byte
}

func (e *internalError) Error() string {
	return fmt.Sprintf("%v: panic: %v\n%s", ErrInternal, e.value, e.stack)
}

func (e *internalError) Unwrap() error { return ErrInternal }

// call runs fn(i), turning a panic into an error wrapping ErrInternal.
func call(fn func(i int) error, i int) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &internalError{value: v, stack: debug.Stack()}
		}
	}()
	return fn(i)
}

// forEach calls fn(i) for every i in [0, n) and returns the lowest i whose
// call failed, with its error (-1 and nil when none did). With more than one
// worker, up to workers goroutines take the next i from a shared counter and
// every call is made; with one, the calls run on the calling goroutine in
// order and stop at the first error.
//
// fn must not panic: nothing this package runs in it does on any input. As
// a last line of defence, a panic that escapes fn anyway is returned as that
// call's error (wrapping [ErrInternal], with the stack) rather than killing
// the process from a goroutine the caller cannot recover in; tests treat it
// as a failure, never as a way to reject input.
func forEach(n, workers int, fn func(i int) error) (int, error) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			if err := call(fn, i); err != nil {
				return i, err
			}
		}
		return -1, nil
	}
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				errs[i] = call(fn, i)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return i, err
		}
	}
	return -1, nil
}

// Pipelined reads.
//
// With Parallelism > 1 a plain read (no Filter, Rows or RangeSource)
// decodes on a pipeline instead of batch by batch with a barrier between
// batches. A task is one field's next batch, or one ReadAt of a row
// group's chunks; up to Parallelism goroutines take tasks in this order:
//
//  1. the fields of the batch Next waits for (largest field first);
//  2. the reads of the next row group, as soon as its buffer is free;
//  3. the fields of the batch after it, while Next waits.
//
// So no goroutine idles while the slowest field of a batch finishes, nor
// while a row group is read from the file, as long as any other work is
// allowed. A field decodes its batches in order (its leaves' state runs
// from batch to batch); different fields are independent.
//
// Memory: two row groups' compressed chunks (the one being decoded and the
// next, in two buffers sized for the largest row group; one when the read
// has one row group), and at most one batch beyond the serial read's:
// while Next waits for batch b, batch b+1 may be decoded; while the caller
// holds batch b, only b+1 is. (A field split into n decoders, see
// splitField, may decode up to b+n-1 while Next waits.) A row
// group's buffer is reused once every batch of the row group before it
// is decoded (no array points into it: leaves copy what they keep).
//
// Workers live only while there is a task allowed: one that finds none
// exits, and Next starts them again. A Reader that is dropped without
// Close therefore leaves no goroutine behind once the batch after the
// current one is decoded; Close stops the workers and waits for them.
type pipeline struct {
	r       *Reader
	mu      sync.Mutex
	changed sync.Cond // the batch Next waits for is complete, or no worker is left
	workers int       // the most goroutines at once
	live    int       // goroutines running
	stop    bool      // Close or the end: take no more tasks
	waiting bool      // Next is waiting for batch want

	groups  []*pipeGroup
	batches []*pipeBatch
	want    int // the batch Next returns next
	fields  []pipeField
	// mostDecoders is the most decoders of a field (splitField).
	mostDecoders int
	slots        [2][]byte
	rgs          []int // the row group of each group
}

// pipeField is the decoding state of one field: its decoders (one, or
// more for a split field, see splitField) and, per decoder, the next batch
// it decodes.
type pipeField struct {
	decs   []fieldDecoder // decs[0] is the plan's; batch j of a row group is decoded by decs[j%len(decs)]
	next   []int          // per decoder: the next batch it decodes (len(batches) when none)
	busy   []bool
	failed []bool // per decoder: a task failed, its state is spent
	// readAhead: the field's leaves read pages ahead (pipeline.readAhead).
	readAhead bool
	// sized, per decoder: its byte array leaves have a size to go by for
	// a fresh batch's data (a batch of their own, or decoder 0's sizes);
	// sizes are those of decoder 0's first batch (binarySizes).
	sized []bool
	sizes []binarySize
}

// pipeGroup is a row group of the read with rows.
type pipeGroup struct {
	rg         int // index in the file
	pos        int // index in Reader.rowGroups
	index      int // index in pipeline.groups
	firstBatch int
	numBatches int
	order      []int // fields, largest first (readPlan.orderByWork)

	placed  bool // layout done, pieces set
	placing bool
	chunks  map[int][]byte
	pieces  []readPiece
	issued  int // pieces handed out
	reading int // pieces handed out and not yet read
	// waiting counts, per field, the pieces holding its chunks that are
	// not read yet; pieceFields lists, per piece, the fields that wait
	// for it. A field's batches start once its own chunks are read, not
	// the whole row group (fieldPieces).
	waiting     []int
	pieceFields [][]int
	err         error
	decoded     int // field batches of the group decoded (numBatches per field when done)
}

// loaded reports whether every piece is read (or, after an error, whether
// no read is under way: no more are handed out).
func (g *pipeGroup) loaded() bool {
	return g.placed && g.reading == 0 && (g.issued == len(g.pieces) || g.err != nil)
}

// pipeBatch is one batch of the read.
type pipeBatch struct {
	group *pipeGroup
	rows  int
	cols  []arrow.Array
	errs  []error
	done  int // fields finished
	scan  int // fields of group.order before it are taken (pickField)
}

// pipeTask is a claimed task: a field's batch, a group to place, or a
// piece of a group.
type pipeTask struct {
	field int // -1: not a field task
	dec   int // the field's decoder (pipeField.decs)
	batch int
	group *pipeGroup
	piece int // -1: place the group
}

// usePipeline reports whether Next reads on a pipeline.
func (r *Reader) usePipeline() bool {
	return r.opts.Parallelism > 1 && r.filt == nil && r.ranged == nil && r.plan.batchCap == 0 && len(r.plan.fields) > 0
}

// newPipeline plans the batches of the row groups not yet read.
func newPipeline(r *Reader) *pipeline {
	p := &pipeline{r: r, workers: r.opts.Parallelism}
	p.changed.L = &p.mu
	for pos := r.nextRG; pos < len(r.rowGroups); pos++ {
		rg := r.rowGroups[pos]
		rows := r.file.Meta.RowGroups[rg].NumRows
		if rows <= 0 {
			continue
		}
		g := &pipeGroup{rg: rg, pos: pos, index: len(p.groups), firstBatch: len(p.batches)}
		for rows > 0 {
			n := min(rows, int64(r.opts.BatchSize))
			p.batches = append(p.batches, &pipeBatch{group: g, rows: int(n)})
			rows -= n
			g.numBatches++
		}
		p.groups = append(p.groups, g)
		p.rgs = append(p.rgs, rg)
	}
	r.nextRG = len(r.rowGroups)
	p.fields = make([]pipeField, len(r.plan.fields))
	for f, fd := range r.plan.fields {
		st := &p.fields[f]
		st.decs = []fieldDecoder{fd}
		for range p.splitField(f) - 1 {
			st.decs = append(st.decs, fd.(*fieldReader).twin(r))
		}
		st.sized = make([]bool, len(st.decs))
		for i, fd := range st.decs {
			st.sized[i] = i == 0 || !fd.(*fieldReader).freshBinary()
		}
		st.next = make([]int, len(st.decs))
		st.busy = make([]bool, len(st.decs))
		st.failed = make([]bool, len(st.decs))
		for i := range st.decs {
			st.next[i] = p.nextBatch(f, i, -1)
		}
		p.mostDecoders = max(p.mostDecoders, len(st.decs))
	}
	if r.opts.prefetch != nil {
		work, total := p.fieldBytes()
		for f := range p.fields {
			st := &p.fields[f]
			st.readAhead = p.readAhead(f, work[f], total)
			if !st.readAhead {
				for _, fd := range st.decs {
					fd.(*fieldReader).setPrefetch(0)
				}
			}
		}
	}
	return p
}

// readAhead reports whether the leaves of field f read pages ahead
// (column.ReaderOptions.Prefetch, prefetch.go), given the uncompressed
// bytes of its chunks in the read (work) and of every field's (total;
// fieldBytes): only when the field is more than its decoders' share of the
// read (work/total × Parallelism > its decoders), so that it would finish
// last with the other workers idle. Reading ahead is for a read whose one
// field is most of the work (a file of one large column; a repeated field,
// which is never split); in a read of several fields of similar size
// (lineitem, numeric) the pipeline keeps every worker busy already, and
// reading ahead only added work: goroutines that take turns with the
// pipeline's workers, a window of their own per chunk, channel hand-offs,
// and three uncompressed pages held per chunk. Bytes allocated per read on
// 2 cores (serial read in brackets): numeric SNAPPY 135.3 → 122.0 MB
// (120.8), lineitem 380.2 → 374.5 (372.5), strings 321.9 → 313.9 (289.1),
// nested 81.5 → 76.5 (75.6); goroutines started per numeric read 55 → 14.
func (p *pipeline) readAhead(f int, work, total int64) bool {
	// share × workers > decoders, by more than an eighth: fields of one
	// size differ a little in bytes, and the others fill what a field
	// just over its share leaves.
	return 8*work*int64(p.workers) > 9*total*int64(len(p.fields[f].decs))
}

// fieldBytes returns the uncompressed bytes of each field's column chunks in
// the row groups of the read, and their sum (fieldWork).
func (p *pipeline) fieldBytes() (work []int64, total int64) {
	work = make([]int64, len(p.fields))
	for f, fd := range p.r.plan.fields {
		for _, g := range p.groups {
			work[f] += fieldWork(p.r.file, g.rg, fd)
		}
		total += work[f]
	}
	return work, total
}

// splitMinBatchBytes is the least uncompressed size of one batch of a
// field, on average over the read, for splitField to split it: each
// decoder of a split field decodes twice the page its batches start in
// (once to skip its head), a page of about 1 MiB with arrow-go's and
// parquet-cpp's default page size, so at 8 MiB per batch at most an
// eighth more of the field's work.
var splitMinBatchBytes int64 = 8 << 20

// splitMinPages is the fewest data pages a batch of a split field spans,
// on average, so that the page decoded twice per batch (splitMinBatchBytes)
// is at most an eighth of a decoder's work also when pages are large.
const splitMinPages = 8

// splitForce, when not zero, is the number of decoders of every field
// that can be split, whatever its size (a test hook: ForceSplit).
var splitForce int

// splitField returns how many decoders field f gets: more than one when
// one field is so large a share of the read that the other fields cannot
// keep the other workers busy while it decodes (the strings dataset: one
// text column is 70% of the bytes, so 2 cores could at best be 1.4×
// faster than one). The decoders of a split field take the batches of a
// row group in turn, each stepping over the others' rows with
// column.Reader.SkipRecords, which skips whole pages by their headers'
// level counts without reading their bodies. That holds for columns
// without repetition only; a field with repeated leaves (whose pages
// would all be decoded to find record ends) or dictionary output (each
// decoder would build its own dictionary array, which a consumer sees as
// a new dictionary every batch) is not split.
//
// A field is split into ceil(share × Parallelism) decoders, at most
// Parallelism, where share is its part of the read's uncompressed bytes,
// and only when its batches average splitMinBatchBytes or more and
// splitMinPages data pages or more.
//
// Memory: each extra decoder holds its own leaf readers: a page buffer and
// the chunk's dictionary, and (until its first skip) a read-ahead of
// column.Reader's. While Next waits for batch want, a field of n decoders
// may decode batches up to want+n-1 (the other fields: want+1, as
// before); while the caller holds a batch, only want is decoded.
func (p *pipeline) splitField(f int) int {
	r := p.r
	fr, ok := r.plan.fields[f].(*fieldReader)
	if !ok || fr.nested || p.workers < 2 {
		return 1
	}
	for _, lr := range fr.leaves {
		if lr.wantIndices {
			return 1
		}
	}
	most := 0 // batches of the largest row group
	for _, g := range p.groups {
		most = max(most, g.numBatches)
	}
	if most < 2 {
		return 1
	}
	if splitForce > 0 {
		return min(splitForce, most)
	}
	var work, total int64
	for _, g := range p.groups {
		work += fieldWork(r.file, g.rg, fr)
		for _, fd := range r.plan.fields {
			total += fieldWork(r.file, g.rg, fd)
		}
	}
	if work < splitMinBatchBytes*int64(len(p.batches)) || total <= 0 {
		return 1
	}
	// The data page counts are those the writer left in encoding_stats
	// (arrow-go, parquet-cpp, parquet-mr and this package write them). A
	// chunk without them is not split: DuckDB 1.5 writes none, and a row
	// group's column as one page, which every decoder would decompress
	// whole to skip into it.
	for _, leaf := range fr.order {
		var pages int64
		for _, g := range p.groups {
			md, err := r.file.ColumnChunk(g.rg, leaf)
			if err != nil || len(md.EncodingStats) == 0 {
				return 1
			}
			for _, st := range md.EncodingStats {
				if st.PageType == format.PageType_DATA_PAGE || st.PageType == format.PageType_DATA_PAGE_V2 {
					pages += max(int64(st.Count), 0)
				}
			}
		}
		if pages < splitMinPages*int64(len(p.batches)) {
			return 1
		}
	}
	n := int((work*int64(p.workers) + total - 1) / total)
	return min(n, p.workers, most)
}

// fieldPieces maps the pieces of row group rg's read to the fields whose
// column chunks they hold: waiting[f] is the number of pieces field f
// needs, pieceFields[i] the fields piece i holds chunk bytes of. So a
// field's first batch starts as soon as its chunks are read, while the
// rest of the row group is still being read: a file of one row group (a
// wide DuckDB file: 2,000 columns, one row group, the read ~10% of the
// whole) no longer reads it all before the first decode, and neither does
// the first row group of any read. A field whose chunk range is not
// known waits for every piece.
func (p *pipeline) fieldPieces(rg int, pieces []readPiece) (waiting []int, pieceFields [][]int) {
	r := p.r
	waiting = make([]int, len(p.fields))
	pieceFields = make([][]int, len(pieces))
	// Pieces are in file order and do not overlap (placeChunks).
	need := func(f int, off, n int64) {
		i := sort.Search(len(pieces), func(i int) bool {
			return pieces[i].offset+int64(len(pieces[i].dst)) > off
		})
		for ; i < len(pieces) && pieces[i].offset < off+n; i++ {
			if k := len(pieceFields[i]); k == 0 || pieceFields[i][k-1] != f {
				pieceFields[i] = append(pieceFields[i], f)
				waiting[f]++
			}
		}
	}
	for f, fd := range r.plan.fields {
		fr, ok := fd.(*fieldReader)
		if !ok {
			need(f, math.MinInt64/2, math.MaxInt64)
			continue
		}
		for _, leaf := range fr.order {
			off, n, err := r.file.ChunkRange(rg, leaf)
			if err != nil {
				need(f, math.MinInt64/2, math.MaxInt64)
				break
			}
			need(f, off, n)
		}
	}
	return waiting, pieceFields
}

// decoder returns the decoder of field f that decodes batch b.
func (p *pipeline) decoder(f, b int) int {
	return (b - p.batches[b].group.firstBatch) % len(p.fields[f].decs)
}

// nextBatch returns the first batch after b that decoder i of field f
// decodes, or len(p.batches).
func (p *pipeline) nextBatch(f, i, b int) int {
	for c := b + 1; c < len(p.batches); c++ {
		if p.decoder(f, c) == i {
			return c
		}
	}
	return len(p.batches)
}

// pick claims the next task allowed, or reports that there is none.
// p.mu is held.
//
// While the caller holds a batch, only the batch Next returns next is
// decoded; while Next waits, the one after it too. Allowing two batches
// ahead while Next waits (so that the workers keep busy while Next gets a
// core) made no difference that traces of the loaded test machine could
// tell from noise, and costs a batch of memory; a worker that completes
// the batch Next waits for yields its core to Next instead (work).
func (p *pipeline) pick() (pipeTask, bool) {
	if p.stop {
		return pipeTask{}, false
	}
	// The row group of batch want keeps one read going while its fields
	// decode (fieldPieces): otherwise its remaining pieces would wait until
	// no field is ready.
	if p.want < len(p.batches) {
		if g := p.batches[p.want].group; g.placed && g.err == nil && g.reading == 0 && g.issued < len(g.pieces) {
			g.issued++
			g.reading++
			return pipeTask{field: -1, group: g, piece: g.issued - 1}, true
		}
	}
	if t, ok := p.pickField(p.want, 1); ok {
		return t, true
	}
	if t, ok := p.pickLoad(); ok {
		return t, true
	}
	if !p.waiting {
		return pipeTask{}, false
	}
	if t, ok := p.pickField(p.want+1, 1); ok {
		return t, true
	}
	// A field split into n decoders decodes up to n batches at once: the
	// batches after want+1 are allowed for those fields alone (splitField).
	for k := 2; k < p.mostDecoders; k++ {
		if t, ok := p.pickField(p.want+k, k+1); ok {
			return t, true
		}
	}
	return pipeTask{}, false
}

// pickField claims a field of at least minDecoders decoders whose next
// batch is b, the largest first. p.mu is held.
func (p *pipeline) pickField(b, minDecoders int) (pipeTask, bool) {
	if b >= len(p.batches) {
		return pipeTask{}, false
	}
	pb := p.batches[b]
	g := pb.group
	if !g.placed || g.err != nil {
		return pipeTask{}, false
	}
	// pb.scan skips the fields taken for b already, so that a file of
	// thousands of columns does not scan them all for every task; it stops
	// at a field still on an earlier batch.
	for i := pb.scan; i < len(g.order); i++ {
		f := g.order[i]
		st := &p.fields[f]
		if len(st.decs) < minDecoders || g.waiting[f] > 0 {
			continue
		}
		d := p.decoder(f, b)
		switch {
		case st.next[d] > b || st.failed[d] || (st.next[d] == b && st.busy[d]):
			if i == pb.scan {
				pb.scan++
			}
		case st.next[d] == b:
			if !st.sized[d] {
				// A split field's other decoders start after decoder 0's
				// first batch, with its sizes (binarySizes).
				if st.sizes == nil && !st.failed[0] {
					continue
				}
				st.decs[d].(*fieldReader).setBinarySizes(st.sizes)
				st.sized[d] = true
			}
			if i == pb.scan {
				pb.scan++
			}
			st.busy[d] = true
			return pipeTask{field: f, dec: d, batch: b}, true
		}
	}
	return pipeTask{}, false
}

// pickLoad claims the placing or a piece of the first group not yet
// loaded, once the group two before it (same buffer) is decoded.
func (p *pipeline) pickLoad() (pipeTask, bool) {
	for i, g := range p.groups {
		if g.loaded() || g.err != nil {
			continue
		}
		if i >= 2 && p.groups[i-2].decoded < len(p.fields)*p.groups[i-2].numBatches {
			return pipeTask{}, false
		}
		if !g.placed {
			if g.placing {
				return pipeTask{}, false
			}
			g.placing = true
			return pipeTask{field: -1, group: g, piece: -1}, true
		}
		if g.issued < len(g.pieces) {
			g.issued++
			g.reading++
			return pipeTask{field: -1, group: g, piece: g.issued - 1}, true
		}
		return pipeTask{}, false
	}
	return pipeTask{}, false
}

// spawn starts workers for the tasks allowed, up to p.workers. p.mu is held.
func (p *pipeline) spawn() {
	for p.live < p.workers {
		t, ok := p.pick()
		if !ok {
			return
		}
		p.live++
		go p.work(t)
	}
}

// work runs t and then the tasks allowed after it, and exits when there
// is none.
func (p *pipeline) work(t pipeTask) {
	for {
		if p.run(t) {
			// Next waits for the batch just completed: hand it this
			// core now rather than at the next preemption, so that it
			// returns the batch and allows the next one.
			runtime.Gosched()
		}
		p.mu.Lock()
		p.spawn()
		var ok bool
		t, ok = p.pick()
		if !ok {
			p.live--
			if p.live == 0 {
				p.changed.Broadcast() // shutdown waits for this
			}
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

// finished records that a task ended and wakes Next when the batch it
// waits for can be returned; it reports whether it did. p.mu is held.
func (p *pipeline) finished() bool {
	if p.waiting && p.want < len(p.batches) && p.complete(p.want) {
		p.changed.Broadcast()
		return true
	}
	return false
}

// run runs a task and records its outcome. It reports whether Next was
// woken.
func (p *pipeline) run(t pipeTask) bool {
	r := p.r
	if t.field < 0 {
		g := t.group
		if t.piece < 0 {
			slot := &p.slots[g.index%2]
			// The slot is free: the group two before is decoded, and no
			// task touches a group's buffer before it is placed.
			var chunks map[int][]byte
			var pieces []readPiece
			err := call(func(int) error {
				var err error
				chunks, pieces, err = r.placeChunks(g.rg, slot, p.rgs[g.index:], 4*p.workers)
				return err
			}, 0)
			order := orderByWork(r.file, g.rg, r.plan.fields)
			waiting, pieceFields := p.fieldPieces(g.rg, pieces)
			p.mu.Lock()
			g.placing, g.placed = false, true
			g.chunks, g.pieces, g.err, g.order = chunks, pieces, err, order
			g.waiting, g.pieceFields = waiting, pieceFields
			woke := p.finished()
			p.mu.Unlock()
			return woke
		}
		var rerr *readError
		if err := call(func(int) error {
			rerr = r.readSpan(g.pieces[t.piece])
			return nil
		}, 0); err != nil {
			rerr = &readError{g.pieces[t.piece].offset, len(g.pieces[t.piece].dst), err}
		}
		p.mu.Lock()
		g.reading--
		if rerr != nil && g.err == nil {
			g.err = r.pieceError(g.rg, rerr)
		}
		if rerr == nil {
			for _, f := range g.pieceFields[t.piece] {
				g.waiting[f]--
			}
		}
		woke := p.finished()
		p.mu.Unlock()
		return woke
	}
	b := p.batches[t.batch]
	g := b.group
	st := &p.fields[t.field]
	fd := st.decs[t.dec]
	n := len(st.decs)
	// call, so that a panic is this field's error (ErrInternal).
	var col arrow.Array
	err := call(func(int) error {
		// A split field's decoder steps over the rows of the batches the
		// other decoders take (splitField): those after its previous batch
		// of the row group, or from the row group's start.
		from := t.batch - n + 1
		if t.batch-g.firstBatch < n {
			if err := fd.startRowGroup(r, g.rg, g.chunks); err != nil {
				return err
			}
			from = g.firstBatch
		}
		if skip := p.rowsBetween(from, t.batch); skip > 0 {
			if err := fd.(*fieldReader).skipRows(skip); err != nil {
				return err
			}
		}
		var err error
		col, err = fd.next(b.rows)
		if n > 1 && t.batch+n >= g.firstBatch+g.numBatches {
			// The decoder's last batch of the group may end before the
			// chunk does: stop its read-ahead before the chunk's buffer
			// is reused.
			fd.(*fieldReader).stopReadAhead()
		}
		return err
	}, t.field)
	p.mu.Lock()
	st.busy[t.dec] = false
	st.next[t.dec] = p.nextBatch(t.field, t.dec, t.batch)
	if t.dec == 0 && err == nil && st.sizes == nil && len(st.decs) > 1 {
		st.sizes = fd.(*fieldReader).binarySizes()
	}
	if b.cols == nil {
		b.cols = make([]arrow.Array, len(r.plan.fields))
		b.errs = make([]error, len(r.plan.fields))
	}
	b.cols[t.field], b.errs[t.field] = col, err
	b.done++
	if err != nil {
		// The decoder is mid-batch: nothing more of it is decoded. Next
		// reports the error when it reaches this batch (the field's other
		// decoders go on: Next may wait for their batches before).
		st.failed[t.dec] = true
	}
	g.decoded++
	woke := p.finished()
	p.mu.Unlock()
	return woke
}

// complete reports whether batch b can be returned or failed: every field
// is done, or a field or the group's read failed. p.mu is held.
func (p *pipeline) complete(b int) bool {
	pb := p.batches[b]
	if pb.group.err != nil && pb.group.loaded() {
		return true
	}
	// Every field finishes batch b, with or without an error: a field that
	// failed before b failed the batch Next returned before.
	return pb.done == len(p.fields)
}

// rowsBetween returns the rows of batches [a, b).
func (p *pipeline) rowsBetween(a, b int) int {
	n := 0
	for _, pb := range p.batches[a:b] {
		n += pb.rows
	}
	return n
}

// take waits for batch want and returns its arrays (the caller owns them)
// and the group it belongs to, or the error of its first failing field in
// schema order, or of the group's read.
func (p *pipeline) take() ([]arrow.Array, *pipeGroup, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.want
	p.waiting = true
	p.spawn()
	for !p.complete(b) {
		p.changed.Wait()
	}
	p.waiting = false
	pb := p.batches[b]
	if g := pb.group; g.err != nil {
		return nil, g, -1, g.err
	}
	for f, err := range pb.errs {
		if err != nil {
			return nil, pb.group, f, err
		}
	}
	cols := pb.cols
	pb.cols = nil
	p.want++
	p.spawn() // batch want may start while the caller holds this one
	return cols, pb.group, -1, nil
}

// shutdown stops the workers, waits for them to exit and releases the
// arrays decoded ahead.
func (p *pipeline) shutdown() {
	p.mu.Lock()
	p.stop = true
	for p.live > 0 {
		p.changed.Wait()
	}
	p.mu.Unlock()
	for i := range p.fields {
		st := &p.fields[i]
		for _, fd := range st.decs[1:] {
			fd.(*fieldReader).release()
		}
		st.decs = st.decs[:1]
	}
	for _, b := range p.batches {
		for _, c := range b.cols {
			if c != nil {
				c.Release()
			}
		}
		b.cols = nil
	}
}
