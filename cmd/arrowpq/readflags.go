package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// readFlags are the flags of every command that reads rows: the
// arrowpq.ReadOptions a user needs to get through files that the defaults
// refuse (Spark INT96 dates past 2262, pages with a wrong CRC, pages
// larger than the default limit).
type readFlags struct {
	int96Unit     timeUnitFlag
	skipChecksums bool
	maxPageSize   sizeFlag
}

func (rf *readFlags) register(fs *flag.FlagSet) {
	rf.int96Unit = timeUnitFlag(arrow.Nanosecond)
	fs.Var(&rf.int96Unit, "int96-unit", "unit of INT96 timestamps: ms, us or ns (ns covers the years 1677-2262; Spark files with other dates need us)")
	fs.BoolVar(&rf.skipChecksums, "skip-checksums", false, "do not verify page CRCs (read a file whose checksums are wrong)")
	fs.Var(&rf.maxPageSize, "max-page-size", fmt.Sprintf("largest page accepted, like 64MiB or 2GiB (default %s)", sizeText(arrowpq.DefaultMaxPageSize)))
}

// apply sets the options the flags stand for.
func (rf *readFlags) apply(opts *arrowpq.ReadOptions) {
	opts.Int96Unit = arrow.TimeUnit(rf.int96Unit)
	opts.SkipChecksums = rf.skipChecksums
	opts.MaxPageSize = int(rf.maxPageSize)
	opts.Decryption = cliCrypt.decryption() // cryptflags.go
}

// timeUnitFlag is the value of --int96-unit.
type timeUnitFlag arrow.TimeUnit

func (u *timeUnitFlag) String() string {
	if u == nil {
		return "ns"
	}
	return arrow.TimeUnit(*u).String()
}

func (u *timeUnitFlag) Set(s string) error {
	switch strings.ToLower(s) {
	case "ms":
		*u = timeUnitFlag(arrow.Millisecond)
	case "us", "µs":
		*u = timeUnitFlag(arrow.Microsecond)
	case "ns":
		*u = timeUnitFlag(arrow.Nanosecond)
	case "s":
		// arrowpq.ReadOptions.Int96Unit's zero value, arrow.Second, means
		// the default (ns), so seconds cannot be asked for.
		return errors.New("seconds are not available for INT96; use ms")
	default:
		return fmt.Errorf("want ms, us or ns")
	}
	return nil
}

// sizeFlag is a byte count given as a number with an optional unit.
type sizeFlag int64

func (s *sizeFlag) String() string {
	if s == nil || *s == 0 {
		return ""
	}
	return sizeText(int64(*s))
}

func (s *sizeFlag) Set(text string) error {
	n, err := parseSize(text)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

// maxSizeFlag bounds --max-page-size: page sizes are int32 in the format,
// so nothing above 4 GiB can ever be needed, and a typo like 2TiB should
// be refused rather than turn off the check.
const maxSizeFlag = 4 << 30

// parseSize reads "1048576", "64MiB", "2GiB", "512k" or "1.5GB": binary
// units K, KiB, M, MiB, G, GiB (powers of 1024) and decimal units KB, MB,
// GB (powers of 1000), as GNU coreutils reads them; case does not matter.
func parseSize(text string) (int64, error) {
	s := strings.TrimSpace(text)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	if num == "" {
		return 0, fmt.Errorf("%q is not a size: want a number with an optional unit, like 64MiB or 2GiB", text)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("%q: unknown unit %q (want B, KiB, MiB, GiB, KB, MB or GB)", text, s[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size", text)
	}
	v *= mult
	if v < 1 || v > maxSizeFlag || v != math.Trunc(v) {
		return 0, fmt.Errorf("%q: want a whole number of bytes from 1 to 4GiB", text)
	}
	return int64(v), nil
}

// sizeText renders n in the largest binary unit that divides it.
func sizeText(n int64) string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

var pageSizeRE = regexp.MustCompile(`page of (\d+) bytes`)

// flagHint names the flag that would get past err, when the command has
// it: " (use --skip-checksums to read it anyway)", or "" when no flag
// helps. The library's sentinels say what kind of failure it was; the
// INT96 range error has no exported sentinel, so its text is matched.
func flagHint(err error, fs *flag.FlagSet) string {
	msg := err.Error()
	has := func(name string) bool { return fs != nil && fs.Lookup(name) != nil }
	switch {
	case errors.Is(err, pagecodec.ErrChecksum) && has("skip-checksums"):
		return " (use --skip-checksums to read it anyway)"
	case errors.Is(err, pagecodec.ErrLimit) && strings.Contains(msg, "above the maximum") && has("max-page-size"):
		if m := pageSizeRE.FindStringSubmatch(msg); m != nil {
			if n, err := strconv.ParseInt(m[1], 10, 64); err == nil && n > 0 && n <= maxSizeFlag {
				// The next power of two holds the page: round numbers are
				// what people type.
				next := int64(1) << bits.Len64(uint64(n-1))
				return fmt.Sprintf(" (use --max-page-size %s to accept it)", sizeText(next))
			}
		}
		return " (use --max-page-size to raise the limit)"
	case strings.Contains(msg, "INT96") && strings.Contains(msg, "does not fit a timestamp") && has("int96-unit"):
		if fs.Lookup("int96-unit").Value.String() == "us" {
			return " (use --int96-unit ms)"
		}
		return " (use --int96-unit us)"
	}
	return cryptHint(err, fs) // cryptflags.go
}
