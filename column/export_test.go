package column

// PagesRead returns how many page bodies r has read (checksummed and
// decompressed) since it was made.
func PagesRead(r *Reader) int { return r.pagesRead }
