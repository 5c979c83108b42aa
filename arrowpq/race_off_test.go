//go:build !race

package arrowpq

// raceEnabled: built with -race, whose sync.Pool drops items at random.
const raceEnabled = false
