package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// Compare checks ours against an engine's rendering of the same file, line
// by line and value by value. It allows only the differences the oracle's
// README documents as engine limits (say which with allow), and a unit
// change of a timestamp or time that keeps its value exactly (a reader may
// pick another unit, e.g. INT96 as microseconds). It returns nil when they
// agree, else an error naming the first differing row and value.
func Compare(ours, theirs []byte, allow Allowances) error {
	a := splitLines(ours)
	b := splitLines(theirs)
	if len(a) != len(b) {
		return fmt.Errorf("%d rows, the engine %d", len(a), len(b))
	}
	for i := range a {
		var x, y any
		if err := decode(a[i], &x); err != nil {
			return fmt.Errorf("row %d: ours is not JSON: %v", i, err)
		}
		if err := decode(b[i], &y); err != nil {
			return fmt.Errorf("row %d: the engine's is not JSON: %v", i, err)
		}
		if path, ok := equalValue(x, y, "", allow); !ok {
			return fmt.Errorf("row %d differs at %s:\n  ours:   %s\n  engine: %s", i, path, a[i], b[i])
		}
	}
	return nil
}

// Allowances are engine limits that Compare tolerates.
type Allowances struct {
	// NanosTruncatedToMicros: DuckDB reads TIME(NANOS) and TIMESTAMP(NANOS, UTC) as µs.
	NanosTruncatedToMicros bool
	// LegacyTimestampNaive: DuckDB reads converted-type-only TIMESTAMP_* as naive.
	LegacyTimestampNaive bool
	// HintOnlyTypesRaw: engines that ignore ARROW:schema show Date64/Time32(s)/Timestamp(s) stored by arrow-rs as raw integers.
	HintOnlyTypesRaw bool
	// DecimalAsDouble: DuckDB reads DECIMAL with precision > 38 as DOUBLE.
	DecimalAsDouble bool
}

// AllowancesFor returns the documented limits of engine.
func AllowancesFor(engine string) Allowances {
	switch engine {
	case "duckdb":
		return Allowances{NanosTruncatedToMicros: true, LegacyTimestampNaive: true, HintOnlyTypesRaw: true, DecimalAsDouble: true}
	case "hyparquet":
		return Allowances{HintOnlyTypesRaw: true}
	}
	return Allowances{}
}

func splitLines(b []byte) [][]byte {
	b = bytes.TrimRight(b, "\n")
	if len(b) == 0 {
		return nil
	}
	return bytes.Split(b, []byte{'\n'})
}

func decode(line []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	return d.Decode(v)
}

var (
	temporalRe = regexp.MustCompile(`^(tsz?|time):(-?\d+)(ms|us|ns)$`)
	intervalRe = regexp.MustCompile(`^interval:(.+)mo(.+)d(.+)ms$`)
	taggedRe   = regexp.MustCompile(`^(date|time|tsz?):`)
	bareIntRe  = regexp.MustCompile(`^-?\d+$`)
	decimalRe  = regexp.MustCompile(`^-?\d+(\.\d+)?$`)
)

var unitNanos = map[string]int64{"ms": 1_000_000, "us": 1_000, "ns": 1}

func equalValue(x, y any, path string, allow Allowances) (string, bool) {
	switch xv := x.(type) {
	case nil:
		return path, y == nil
	case bool:
		yv, ok := y.(bool)
		return path, ok && xv == yv
	case json.Number:
		if yv, ok := y.(json.Number); ok {
			fx, e1 := xv.Float64()
			fy, e2 := yv.Float64()
			return path, e1 == nil && e2 == nil && fx == fy
		}
		if ys, ok := y.(string); ok && allow.DecimalAsDouble && decimalRe.MatchString(ys) {
			return path, true
		}
		return path, false
	case string:
		switch yv := y.(type) {
		case string:
			return path, equalString(xv, yv, allow)
		case json.Number:
			return path, allow.DecimalAsDouble && decimalRe.MatchString(xv)
		}
		return path, false
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return path, false
		}
		for i := range xv {
			if p, ok := equalValue(xv[i], yv[i], fmt.Sprintf("%s[%d]", path, i), allow); !ok {
				return p, false
			}
		}
		return path, true
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok || len(xv) != len(yv) {
			return path, false
		}
		for k, v := range xv {
			w, ok := yv[k]
			if !ok {
				return path + "." + k, false
			}
			if p, ok := equalValue(v, w, path+"."+k, allow); !ok {
				return p, false
			}
		}
		return path, true
	}
	return path, false
}

func equalString(a, b string, allow Allowances) bool {
	if a == b {
		return true
	}
	if ia, ib := intervalRe.FindStringSubmatch(a), intervalRe.FindStringSubmatch(b); ia != nil && ib != nil {
		for k := 1; k <= 3; k++ {
			if ia[k] != "?" && ib[k] != "?" && ia[k] != ib[k] {
				return false
			}
		}
		return true
	}
	ta, tb := temporalRe.FindStringSubmatch(a), temporalRe.FindStringSubmatch(b)
	if ta != nil && tb != nil {
		va := scaled(ta[2], ta[3])
		vb := scaled(tb[2], tb[3])
		if ta[1] == tb[1] && va.Cmp(vb) == 0 {
			return true // the same instant in another unit
		}
		if allow.LegacyTimestampNaive && strings.TrimSuffix(ta[1], "z") == strings.TrimSuffix(tb[1], "z") && va.Cmp(vb) == 0 {
			return true
		}
		if allow.NanosTruncatedToMicros && ta[1] == tb[1] {
			d := new(big.Int).Sub(va, vb)
			if d.CmpAbs(big.NewInt(1000)) < 0 {
				return true
			}
		}
		return false
	}
	if allow.HintOnlyTypesRaw && (taggedRe.MatchString(a) && bareIntRe.MatchString(b) || taggedRe.MatchString(b) && bareIntRe.MatchString(a)) {
		return true
	}
	return false
}

func scaled(digits, unit string) *big.Int {
	v, _ := new(big.Int).SetString(digits, 10)
	return v.Mul(v, big.NewInt(unitNanos[unit]))
}
