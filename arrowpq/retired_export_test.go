package arrowpq

// DrainRetired drops every Reader's retired buffers (retired.go).
func DrainRetired() {
	for takeRetired() != nil {
	}
}

// PoisonRetired fills every byte, up to capacity, of the buffers one
// closed Reader left with fill and puts them back; it returns how many
// buffers it filled (0: none waiting). The assemblers' buffers are
// poisoned by the levels package's tests (TestPropertyRead).
func PoisonRetired(fill byte) int {
	v := takeRetired()
	if v == nil {
		return 0
	}
	n := 0
	for _, list := range [][][]byte{v.pages, v.windows, v.dictionaries, v.scratch} {
		for _, b := range list {
			b = b[:cap(b)]
			for i := range b {
				b[i] = fill
			}
			n++
		}
	}
	putRetired(v)
	return n
}

// RetiredWaiting returns how many closed Readers' sets wait.
func RetiredWaiting() int {
	retiredSets.Lock()
	defer retiredSets.Unlock()
	return len(retiredSets.cur) + len(retiredSets.old)
}
