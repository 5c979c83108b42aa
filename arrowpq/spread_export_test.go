package arrowpq

// SetSpreadDecode turns the decode of flat fixed-width values straight
// into their slots (column.Reader.DecodeSpread) on or off and returns a
// function that restores it.
func SetSpreadDecode(on bool) (restore func()) {
	old := spreadDecode
	spreadDecode = on
	return func() { spreadDecode = old }
}
