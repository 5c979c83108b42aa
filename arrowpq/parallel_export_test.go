package arrowpq

// ForceSplit makes the pipeline decode every field that can be split
// (pipeline.splitField) with n decoders, whatever its size; 0 restores
// the size rule. Tests call it while no read runs.
func ForceSplit(n int) { splitForce = n }

// SplitDecoders returns the number of decoders of each field of a
// pipelined read, or nil before the first Next or after the end.
func SplitDecoders(r *Reader) []int {
	if r.pipe == nil {
		return nil
	}
	var n []int
	for _, st := range r.pipe.fields {
		n = append(n, len(st.decs))
	}
	return n
}

// BatchFieldsDone returns the fields of batch b of a pipelined read that
// are decoded, under the pipeline's lock.
func BatchFieldsDone(r *Reader, b int) int {
	p := r.pipe
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.batches[b].done
}

// SetSplitMinBatchBytes sets the least batch size of a field that the
// pipeline splits and returns the previous one; tests call it while no
// read runs.
func SetSplitMinBatchBytes(n int64) int64 {
	old := splitMinBatchBytes
	splitMinBatchBytes = n
	return old
}

// ReadAheadFields reports, per field of a pipelined read, whether its
// leaves read pages ahead (pipeline.readAhead), or nil before the first
// Next or after the end.
func ReadAheadFields(r *Reader) []bool {
	if r.pipe == nil {
		return nil
	}
	var ahead []bool
	for _, st := range r.pipe.fields {
		ahead = append(ahead, st.readAhead)
	}
	return ahead
}

// SplitSized reports, per field of a pipelined read, whether every decoder
// of the field has sizes for its byte array batches (its own or decoder
// 0's, pipeField.sized) and, for a split field, decoder 0's sizes were
// taken.
func SplitSized(r *Reader) []bool {
	p := r.pipe
	p.mu.Lock()
	defer p.mu.Unlock()
	var sized []bool
	for _, st := range p.fields {
		ok := len(st.decs) == 1 || st.sizes != nil
		for _, s := range st.sized {
			ok = ok && s
		}
		sized = append(sized, ok)
	}
	return sized
}

// SetPrefetchMinBytes sets the smallest column chunk read ahead with
// Parallelism > 1 (0: column.DefaultPrefetchMinBytes). Tests call it while
// no read runs.
func SetPrefetchMinBytes(n int) { prefetchMinBytes = n }
