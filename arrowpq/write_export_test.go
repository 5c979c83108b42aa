package arrowpq

// MemoPieces returns how many pieces of the last batch written went
// through Arrow dictionaries (the memo path), over all columns.
func MemoPieces(w *Writer) int {
	n := 0
	for _, c := range w.cols {
		if c.memo.on {
			n += int(c.memo.epoch)
		}
	}
	return n
}
