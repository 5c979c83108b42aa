package main

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

func init() {
	register(&command{
		name: "bloom",
		summary: "ask the bloom filter of column COL in each row group whether it may contain VALUE\n\n" +
			"VALUE is read by the column's type: integers, floats, true/false, dates (2024-01-31),\n" +
			"timestamps (RFC 3339, or a number in the column's unit), times (a number in the column's\n" +
			"unit), decimals (12.34), UUIDs, strings as they are, and other binary as 0x-prefixed hex.\n" +
			"Each row group says \"may contain\", \"definitely not\" or \"no bloom filter\".",
		usage: "FILE COL VALUE",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			return func(args []string, out io.Writer) error {
				if len(args) != 3 {
					return &usageError{fmt.Sprintf("want FILE, COL and VALUE, got %d arguments", len(args))}
				}
				_, err := withFile(args[0], func(p *parquetFile) error {
					c, err := p.column(args[1])
					if err != nil {
						return err
					}
					b, err := parseValue(c, args[2])
					if err != nil {
						return &usageError{fmt.Sprintf("VALUE %q for column %s: %v", args[2], c.DottedPath, err)}
					}
					h := metadata.XXHash64(b)
					var sb strings.Builder
					for rg := range p.meta.Meta.RowGroups {
						bf, err := metadata.ReadEncryptedBloomFilter(p.fh, p.meta, rg, c.Index, p.indexDecryptor(rg, c.Index))
						switch {
						case errors.Is(err, metadata.ErrNoBloomFilter):
							fmt.Fprintf(&sb, "row group %d: no bloom filter\n", rg)
						case err != nil:
							return fmt.Errorf("row group %d, column %s: %w", rg, c.DottedPath, err)
						case bf.MayContain(h):
							fmt.Fprintf(&sb, "row group %d: may contain\n", rg)
						default:
							fmt.Fprintf(&sb, "row group %d: definitely not\n", rg)
						}
					}
					_, err = io.WriteString(out, sb.String())
					return err
				})
				return err
			}
		},
	})
}

// parseValue turns text into the PLAIN bytes of a value of column c: what
// a bloom filter hashes.
func parseValue(c *metadata.Column, text string) ([]byte, error) {
	w := max(c.PlainSize(), 0) // 0 for BYTE_ARRAY
	probe := make([]byte, w)
	// The kind, unit and scale of the column, from a zero value of its type.
	kind, err := metadata.DecodeValue(c, probe)
	if err != nil {
		return nil, err
	}
	le := func(v int64) []byte {
		if w == 4 {
			return binary.LittleEndian.AppendUint32(nil, uint32(v))
		}
		return binary.LittleEndian.AppendUint64(nil, uint64(v))
	}
	bitsFor := 64
	if w == 4 {
		bitsFor = 32
	}
	switch c.Physical {
	case format.Type_BOOLEAN:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, errors.New("want true or false")
		}
		if b {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	case format.Type_FLOAT:
		f, err := strconv.ParseFloat(text, 32)
		if err != nil {
			return nil, errors.New("want a number")
		}
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f))), nil
	case format.Type_DOUBLE:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, errors.New("want a number")
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)), nil
	case format.Type_INT96:
		return nil, errors.New("INT96 values cannot be looked up")
	case format.Type_INT32, format.Type_INT64:
		switch kind.Kind {
		case metadata.KindDate:
			t, err := time.Parse(time.DateOnly, text)
			if err != nil {
				return nil, errors.New("want a date as 2024-01-31")
			}
			return le(t.Unix() / 86400), nil
		case metadata.KindTimestamp:
			if t, err := time.Parse(time.RFC3339Nano, text); err == nil {
				switch kind.Unit {
				case metadata.Millis:
					return le(t.UnixMilli()), nil
				case metadata.Micros:
					return le(t.UnixMicro()), nil
				default:
					return le(t.UnixNano()), nil
				}
			}
		case metadata.KindDecimal:
			u, err := parseDecimal(text, kind.Scale)
			if err != nil {
				return nil, err
			}
			if !u.IsInt64() || bitsFor == 32 && (u.Int64() < math.MinInt32 || u.Int64() > math.MaxInt32) {
				return nil, errors.New("decimal out of range")
			}
			return le(u.Int64()), nil
		case metadata.KindUint:
			u, err := strconv.ParseUint(text, 10, bitsFor)
			if err != nil {
				return nil, fmt.Errorf("want an unsigned %d-bit integer", bitsFor)
			}
			return le(int64(u)), nil
		}
		v, err := strconv.ParseInt(text, 10, bitsFor)
		if err != nil {
			return nil, fmt.Errorf("want a %d-bit integer", bitsFor)
		}
		return le(v), nil
	}
	// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
	var b []byte
	switch kind.Kind {
	case metadata.KindString:
		b = []byte(text)
	case metadata.KindUUID:
		raw, err := hex.DecodeString(strings.ReplaceAll(text, "-", ""))
		if err != nil || len(raw) != 16 {
			return nil, errors.New("want a UUID")
		}
		b = raw
	case metadata.KindDecimal:
		u, err := parseDecimal(text, kind.Scale)
		if err != nil {
			return nil, err
		}
		b = twosComplement(u, w)
		if b == nil {
			return nil, errors.New("decimal out of range")
		}
	default:
		if rest, ok := strings.CutPrefix(text, "0x"); ok {
			raw, err := hex.DecodeString(rest)
			if err != nil {
				return nil, errors.New("want hex digits after 0x")
			}
			b = raw
		} else {
			b = []byte(text)
		}
	}
	if w > 0 && len(b) != w {
		return nil, fmt.Errorf("%d bytes for a FIXED_LEN_BYTE_ARRAY(%d)", len(b), w)
	}
	return b, nil
}

// parseDecimal parses "12.34" as an unscaled integer of the given scale.
func parseDecimal(text string, scale int32) (*big.Int, error) {
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil, errors.New("want a decimal number")
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	if !r.IsInt() {
		return nil, fmt.Errorf("more than %d digits after the point", scale)
	}
	return r.Num(), nil
}

// twosComplement renders u big-endian in width bytes (the minimal width
// when width is 0), or nil when it does not fit.
func twosComplement(u *big.Int, width int) []byte {
	n := width
	if n <= 0 {
		n = (u.BitLen())/8 + 1
	}
	mod := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	v := new(big.Int).Set(u)
	half := new(big.Int).Rsh(mod, 1)
	if v.Cmp(half) >= 0 || v.Cmp(new(big.Int).Neg(half)) < 0 {
		return nil
	}
	if v.Sign() < 0 {
		v.Add(v, mod)
	}
	return v.FillBytes(make([]byte, n))
}
