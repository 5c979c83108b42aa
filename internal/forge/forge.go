// Package forge makes hostile Parquet files from valid ones by forging
// fields: it decodes the footer and every page header, sets one or more of
// their fields (counts, sizes, offsets, type_length, num_children, level
// byte lengths, ...) to edge values (0, -1, 2^31-1, 2^63-1, just past the
// data, off by one, ...), re-encodes them with the metadata package's
// Thrift code and reassembles the file, keeping every other offset of the
// footer pointing where it pointed. A reader must answer each such file
// with data or a clean error: no panic, no unbounded allocation, no hang.
//
// It serves the FuzzForgeFields fuzz target of package arrowpq and the
// mutation campaign of this package's tests (campaign_test.go), which reads
// mutants in child processes under a memory cap with arrowpq and, for
// comparison, arrow-go's pqarrow.
//
// A mutation is driven by a plan: bytes that choose the fields and the
// values, so that a fuzzer explores plans and a campaign draws them from a
// seeded generator; the same file and plan always give the same mutant.
package forge

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// File is a valid Parquet file taken apart: where its footer and page
// headers are. It is read only after Parse; Mutate may be called from
// several goroutines.
type File struct {
	Name  string
	Data  []byte
	Pages []Page // every page header found, in file order
	// footerStart is the offset of the serialized FileMetaData.
	footerStart int
}

// Page locates one page header of a column chunk.
type Page struct {
	Offset    int // of the header in the file
	HeaderLen int
	RowGroup  int
	Column    int
}

// Parse takes data apart. Page headers are followed from the start of each
// column chunk for as long as they parse and stay in the chunk.
func Parse(name string, data []byte) (*File, error) {
	md, start, err := footer(data)
	if err != nil {
		return nil, err
	}
	f := &File{Name: name, Data: data, footerStart: start}
	for rg, g := range md.RowGroups {
		for col, cc := range g.Columns {
			if cc == nil || cc.MetaData == nil {
				continue
			}
			m := cc.MetaData
			off := m.DataPageOffset
			if d := m.DictionaryPageOffset; d != nil && *d > 0 && *d < off {
				off = *d
			}
			end := off + m.TotalCompressedSize
			if off < 4 || end > int64(start) || m.TotalCompressedSize < 0 {
				continue
			}
			for pos := int(off); pos < int(end); {
				var h format.PageHeader
				n, err := metadata.Unmarshal(data[pos:end], &h)
				if err != nil || h.CompressedPageSize < 0 {
					break
				}
				f.Pages = append(f.Pages, Page{Offset: pos, HeaderLen: n, RowGroup: rg, Column: col})
				pos += n + int(h.CompressedPageSize)
			}
		}
	}
	return f, nil
}

// footer parses the footer of data, returning where it starts.
func footer(data []byte) (*format.FileMetaData, int, error) {
	if len(data) < 12 || string(data[len(data)-4:]) != "PAR1" {
		return nil, 0, errors.New("forge: not a Parquet file")
	}
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := len(data) - 8 - n
	if n <= 0 || start < 4 {
		return nil, 0, errors.New("forge: bad footer length")
	}
	// A copy: the parsed binary fields alias it, and forging must not
	// touch the original.
	b := append([]byte(nil), data[start:len(data)-8]...)
	md, err := metadata.ParseFileMetaData(b)
	if err != nil {
		return nil, 0, fmt.Errorf("forge: %w", err)
	}
	return md, start, nil
}

// Plan turns bytes into choices; past its end every choice is 0.
type Plan struct {
	b   []byte
	pos int
}

// NewPlan returns a plan reading b.
func NewPlan(b []byte) *Plan { return &Plan{b: b} }

// Intn returns a choice in [0, n) from the next two bytes.
func (p *Plan) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	var v uint32
	for range 2 {
		v <<= 8
		if p.pos < len(p.b) {
			v |= uint32(p.b[p.pos])
			p.pos++
		}
	}
	return int(v % uint32(n))
}

// Int64 returns eight bytes of the plan as a number.
func (p *Plan) Int64() int64 {
	var v uint64
	for range 8 {
		v <<= 8
		if p.pos < len(p.b) {
			v |= uint64(p.b[p.pos])
			p.pos++
		}
	}
	return int64(v)
}

// Mutant is one forged file.
type Mutant struct {
	Data []byte
	// What lists the forged fields and their new values, for reports.
	What []string
}

// Mutate forges one to three fields of f chosen by plan: of the footer or
// of page headers. It returns false when the plan found nothing to forge
// or the forged structures cannot be encoded (a union left empty).
func (f *File) Mutate(plan *Plan) (Mutant, bool) {
	md, _, err := footer(f.Data)
	if err != nil {
		return Mutant{}, false
	}
	headers := map[int]*format.PageHeader{} // by index in f.Pages
	var what []string
	k := 1 + plan.Intn(3)
	for range k {
		if len(f.Pages) > 0 && plan.Intn(2) == 0 {
			i := plan.Intn(len(f.Pages))
			h := headers[i]
			if h == nil {
				p := f.Pages[i]
				h = new(format.PageHeader)
				if _, err := metadata.Unmarshal(f.Data[p.Offset:p.Offset+p.HeaderLen], h); err != nil {
					return Mutant{}, false
				}
				headers[i] = h
			}
			if w, ok := forgeField(h, plan, len(f.Data)); ok {
				what = append(what, fmt.Sprintf("page %d (rg %d col %d at %d) %s", i, f.Pages[i].RowGroup, f.Pages[i].Column, f.Pages[i].Offset, w))
			}
			continue
		}
		if w, ok := forgeField(md, plan, len(f.Data)); ok {
			what = append(what, "footer "+w)
		}
	}
	if len(what) == 0 {
		return Mutant{}, false
	}
	data, err := f.rebuild(md, headers)
	if err != nil {
		return Mutant{}, false
	}
	return Mutant{Data: data, What: what}, true
}

// rebuild writes the file with the forged headers in place of the old ones
// and the forged footer. Headers that changed length shift what follows;
// the offsets of the footer that pointed past them are shifted alike, and
// the chunk holding them grows or shrinks, so that only forged fields lie.
// md is the forged footer: offsets are shifted from their original values
// (a forged offset is left as forged).
func (f *File) rebuild(md *format.FileMetaData, headers map[int]*format.PageHeader) ([]byte, error) {
	type edit struct {
		offset, oldLen int
		b              []byte
		rg, col        int
	}
	var edits []edit
	for i, h := range headers {
		b, err := metadata.Marshal(nil, h)
		if err != nil {
			return nil, err
		}
		p := f.Pages[i]
		edits = append(edits, edit{p.Offset, p.HeaderLen, b, p.RowGroup, p.Column})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].offset < edits[j].offset })
	out := make([]byte, 0, len(f.Data)+256)
	pos := 0
	for _, e := range edits {
		out = append(out, f.Data[pos:e.offset]...)
		out = append(out, e.b...)
		pos = e.offset + e.oldLen
	}
	out = append(out, f.Data[pos:f.footerStart]...)
	if len(edits) > 0 {
		orig, _, err := footer(f.Data)
		if err != nil {
			return nil, err
		}
		// shift returns where original offset v lands.
		shift := func(v int64) int64 {
			d := int64(0)
			for _, e := range edits {
				if int64(e.offset) < v {
					d += int64(len(e.b) - e.oldLen)
				}
			}
			return v + d
		}
		fix := func(forged *int64, original int64) {
			if *forged == original {
				*forged = shift(original)
			}
		}
		fixPtr := func(forged, original *int64) {
			if forged != nil && original != nil {
				fix(forged, *original)
			}
		}
		for rg, g := range md.RowGroups {
			if rg >= len(orig.RowGroups) {
				break
			}
			og := orig.RowGroups[rg]
			fixPtr(g.FileOffset, og.FileOffset)
			for col, cc := range g.Columns {
				if col >= len(og.Columns) || cc == nil || og.Columns[col] == nil {
					continue
				}
				oc := og.Columns[col]
				fix(&cc.FileOffset, oc.FileOffset)
				fixPtr(cc.OffsetIndexOffset, oc.OffsetIndexOffset)
				fixPtr(cc.ColumnIndexOffset, oc.ColumnIndexOffset)
				if cc.MetaData == nil || oc.MetaData == nil {
					continue
				}
				m, om := cc.MetaData, oc.MetaData
				fix(&m.DataPageOffset, om.DataPageOffset)
				fixPtr(m.DictionaryPageOffset, om.DictionaryPageOffset)
				fixPtr(m.IndexPageOffset, om.IndexPageOffset)
				fixPtr(m.BloomFilterOffset, om.BloomFilterOffset)
				grow := int64(0)
				for _, e := range edits {
					if e.rg == rg && e.col == col {
						grow += int64(len(e.b) - e.oldLen)
					}
				}
				if m.TotalCompressedSize == om.TotalCompressedSize {
					m.TotalCompressedSize += grow
				}
			}
		}
	}
	return metadata.AppendFooter(out, md)
}

// forgeField sets one field of the structure behind root (a pointer to a
// format struct), chosen by plan, to an edge value, and describes it.
func forgeField(root any, plan *Plan, fileSize int) (string, bool) {
	slots := make([]slot, 0, 512)
	collect(reflect.ValueOf(root).Elem(), -1, "", &slots, 0)
	if len(slots) == 0 {
		return "", false
	}
	i := plan.Intn(len(slots))
	return slots[i].forge(slots, i, plan, fileSize), true
}

// slot is one forgeable field: a number, a bool, an optional number, the
// length of a list, or binary content. Its path is built only for the
// chosen one (from its parent's): formatting every path made up a quarter
// of a fuzz execution.
type slot struct {
	v      reflect.Value
	parent int // index of the enclosing slot, -1 at the root
	name   string
	index  int // element index in a list, or -1
}

func pathOf(slots []slot, i int) string {
	if i < 0 {
		return ""
	}
	s := slots[i]
	if s.parent < 0 && s.index < 0 {
		return "" // the root struct
	}
	if s.index >= 0 {
		return fmt.Sprintf("%s[%d]", pathOf(slots, s.parent), s.index)
	}
	return pathOf(slots, s.parent) + "." + s.name
}

// fieldNames caches the Thrift names of the fields of format structs.
var fieldNames sync.Map // reflect.Type -> []string ("" for unexported)

func namesOf(t reflect.Type) []string {
	if v, ok := fieldNames.Load(t); ok {
		return v.([]string)
	}
	names := make([]string, t.NumField())
	for i := range names {
		if f := t.Field(i); f.IsExported() {
			names[i], _, _ = strings.Cut(f.Tag.Get("thrift"), ",")
			if names[i] == "" {
				names[i] = f.Name
			}
		}
	}
	fieldNames.Store(t, names)
	return names
}

// collect appends the forgeable fields of v, depth first. Structs and list
// elements get a slot too (not forgeable themselves) so that paths can be
// rebuilt.
func collect(v reflect.Value, parent int, name string, out *[]slot, depth int) {
	collectIndex(v, parent, name, -1, out, depth)
}

func collectIndex(v reflect.Value, parent int, name string, index int, out *[]slot, depth int) {
	if depth > 12 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			if isInt(v.Type().Elem().Kind()) {
				*out = append(*out, slot{v, parent, name, index}) // may be set
			}
			return
		}
		if isInt(v.Elem().Kind()) {
			*out = append(*out, slot{v, parent, name, index})
			return
		}
		collectIndex(v.Elem(), parent, name, index, out, depth+1)
	case reflect.Struct:
		*out = append(*out, slot{v, parent, name, index})
		me := len(*out) - 1
		names := namesOf(v.Type())
		for i, n := range names {
			if n != "" {
				collect(v.Field(i), me, n, out, depth+1)
			}
		}
	case reflect.Slice:
		*out = append(*out, slot{v, parent, name, index}) // its length, or its bytes
		me := len(*out) - 1
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			collectIndex(v.Index(i), me, "", i, out, depth+1)
		}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Bool, reflect.String:
		*out = append(*out, slot{v, parent, name, index})
	}
}

func isInt(k reflect.Kind) bool {
	return k == reflect.Int8 || k == reflect.Int16 || k == reflect.Int32 || k == reflect.Int64
}

// forge sets the field of slots[i] and describes the change.
func (s slot) forge(slots []slot, i int, plan *Plan, fileSize int) string {
	v := s.v
	path := pathOf(slots, i)
	switch v.Kind() {
	case reflect.Struct:
		// Not a field: forge the first field of the struct instead, or
		// nothing.
		for j := i + 1; j < len(slots); j++ {
			if slots[j].parent == i && slots[j].v.Kind() != reflect.Struct {
				return slots[j].forge(slots, j, plan, fileSize)
			}
		}
		return path + " unchanged"
	case reflect.Pointer:
		if !v.IsNil() && plan.Intn(8) == 0 {
			v.Set(reflect.Zero(v.Type()))
			return path + " = absent"
		}
		var old int64
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		} else {
			old = v.Elem().Int()
		}
		x := setInt(v.Elem(), edgeValue(plan, old, fileSize))
		return fmt.Sprintf("%s = %d (was %d)", path, x, old)
	case reflect.Bool:
		v.SetBool(!v.Bool())
		return fmt.Sprintf("%s = %v", path, v.Bool())
	case reflect.String:
		switch plan.Intn(3) {
		case 0:
			v.SetString("")
		case 1:
			v.SetString(v.String() + "x")
		default:
			v.SetString(strings.Repeat("A", 1+plan.Intn(300)))
		}
		return fmt.Sprintf("%s = %q", path, trim(v.String()))
	case reflect.Slice:
		return path + " " + forgeSlice(v, plan)
	}
	old := v.Int()
	x := setInt(v, edgeValue(plan, old, fileSize))
	return fmt.Sprintf("%s = %d (was %d)", path, x, old)
}

func trim(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

// forgeSlice changes a list's length (drop, duplicate, truncate an
// element) or a binary value's bytes; it never puts a nil element in a
// list, which the Thrift encoder cannot write.
func forgeSlice(v reflect.Value, plan *Plan) string {
	n := v.Len()
	if v.Type().Elem().Kind() == reflect.Uint8 {
		b := append([]byte(nil), v.Bytes()...)
		switch plan.Intn(4) {
		case 0:
			b = b[:plan.Intn(len(b)+1)]
		case 1:
			for range 1 + plan.Intn(16) {
				b = append(b, byte(plan.Intn(256)))
			}
		case 2:
			if len(b) > 0 {
				b[plan.Intn(len(b))] ^= byte(1 + plan.Intn(255))
			}
		default:
			b = nil
		}
		v.SetBytes(b)
		return fmt.Sprintf("= %d bytes (was %d)", len(b), n)
	}
	switch op := plan.Intn(4); {
	case op == 0 && n > 0:
		i := plan.Intn(n)
		nv := reflect.AppendSlice(v.Slice(0, i), v.Slice(i+1, n))
		v.Set(reflect.AppendSlice(reflect.MakeSlice(v.Type(), 0, n-1), nv))
		return fmt.Sprintf("drop element %d of %d", i, n)
	case op == 1 && n > 0:
		i := plan.Intn(n)
		nv := reflect.MakeSlice(v.Type(), 0, n+1)
		nv = reflect.AppendSlice(nv, v.Slice(0, i+1))
		nv = reflect.AppendSlice(nv, v.Slice(i, n))
		v.Set(nv)
		return fmt.Sprintf("duplicate element %d of %d", i, n)
	case op == 2 && n > 0:
		k := plan.Intn(n)
		v.Set(v.Slice(0, k))
		return fmt.Sprintf("truncate to %d of %d", k, n)
	}
	v.Set(reflect.Zero(v.Type()))
	return fmt.Sprintf("empty (was %d)", n)
}

// setInt sets v to x, saturated to v's type, and returns what was set.
func setInt(v reflect.Value, x int64) int64 {
	if v.OverflowInt(x) {
		bits := v.Type().Bits()
		if x > 0 {
			x = int64(1)<<(bits-1) - 1
		} else {
			x = -(int64(1) << (bits - 1))
		}
	}
	v.SetInt(x)
	return x
}

// edgeValue picks a value for a field that held old in a file of size
// fileSize: the extremes, the boundaries of the data, and near misses.
func edgeValue(plan *Plan, old int64, fileSize int) int64 {
	size := int64(fileSize)
	switch plan.Intn(24) {
	case 0:
		return 0
	case 1:
		return -1
	case 2:
		return 1
	case 3:
		return math.MaxInt32
	case 4:
		return math.MaxInt64
	case 5:
		return math.MinInt64
	case 6:
		return math.MinInt32
	case 7:
		return old + 1
	case 8:
		return old - 1
	case 9:
		return old * 2
	case 10:
		return old / 2
	case 11:
		return size
	case 12:
		return size + 1
	case 13:
		return size - 1
	case 14:
		return old + size
	case 15:
		return 1 << 31
	case 16:
		return 1 << 32
	case 17:
		return 1 << 30
	case 18:
		return 1 << 24
	case 19:
		return 1 << 16
	case 20:
		return old + int64(plan.Intn(64)) - 32
	case 21:
		return math.MaxInt32 - int64(plan.Intn(16))
	case 22:
		return int64(plan.Intn(int(min(max(2*size, 1), 1<<20))))
	}
	return plan.Int64()
}

// MutateBytes makes a mutant the blunt way, for comparison with forging:
// flipped bytes, a truncation, or a splice of the file into itself.
func MutateBytes(data []byte, plan *Plan) Mutant {
	b := append([]byte(nil), data...)
	switch plan.Intn(3) {
	case 0:
		k := 1 + plan.Intn(8)
		for range k {
			b[plan.Intn(len(b))] ^= byte(1 + plan.Intn(255))
		}
		return Mutant{Data: b, What: []string{fmt.Sprintf("flip %d bytes", k)}}
	case 1:
		// Keep the footer: cut bytes out of the middle.
		at := plan.Intn(len(b))
		n := 1 + plan.Intn(min(len(b)-at, 4096))
		if at+n > len(b)-8 {
			n = max(0, len(b)-8-at)
		}
		b = append(b[:at], b[at+n:]...)
		return Mutant{Data: b, What: []string{fmt.Sprintf("cut %d bytes at %d", n, at)}}
	default:
		from, to := plan.Intn(len(b)), plan.Intn(len(b))
		n := min(1+plan.Intn(512), len(b)-from, len(b)-to)
		copy(b[to:to+n], data[from:from+n])
		return Mutant{Data: b, What: []string{fmt.Sprintf("splice %d bytes from %d to %d", n, from, to)}}
	}
}
