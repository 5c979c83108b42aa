package levels

// SplitRecords finds where to cut repetition levels so that a batch holds
// whole records. [Assembler.AppendRecords] does the same while it
// assembles, with no separate pass over the levels. Scanning rep from the start, it takes any leading levels
// with rep > 0 (the rest of a record begun before rep, counted in numLevels
// but not in numRecords), then up to maxRecords records, each a level with
// rep = 0 and the levels with rep > 0 after it.
//
// complete reports that the scan stopped at the start of a record (a level
// with rep = 0 after maxRecords records), so the last record counted is
// known to be whole. When it is false all of rep was taken and the last
// record may continue in the next page: read more levels, or, at the end
// of the column chunk, the record is whole. For columns with no repetition
// every level is a record: use numLevels = min(len, maxRecords).
func SplitRecords(rep []int16, maxRecords int) (numLevels, numRecords int, complete bool) {
	for i, r := range rep {
		if r == 0 {
			if numRecords == maxRecords {
				return i, numRecords, true
			}
			numRecords++
		}
	}
	return len(rep), numRecords, false
}
