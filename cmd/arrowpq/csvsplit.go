package main

// The CSV record splitter of convert's CSV input: the grammar of
// encoding/csv (RFC 4180 with its relaxations) without a string per
// record or a copy per field.
//
//	record = field *(delim field) (LF / CRLF / end of input)
//	field  = quoted / bare
//	quoted = DQUOTE *(any byte but DQUOTE / 2DQUOTE) DQUOTE
//	bare   = *(any byte but delim, DQUOTE, LF)
//
// As in encoding/csv (LazyQuotes off, no comment character): empty lines
// are skipped; CRLF ends a record like LF, and inside a quoted field it
// becomes LF; a CR at the very end of the input is dropped; a quote in a
// bare field, or a closing quote followed by anything but a delimiter or
// a line end, is an error; so is a quoted field open at the end of input.
//
// The input is read in big blocks. Fields are (start, end) spans into the
// block: a quoted field with a doubled quote or a CRLF is unescaped in
// place (it only shrinks). A line without a quote, by far the most common
// case, is split by a word-at-a-time scan for the delimiter; the rest
// goes through a byte-wise parser.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// Block sizes of the splitter: it reads csvFirstBlockSize bytes first,
// twice as many each time after up to csvBlockSize, and grows its buffer
// beyond for a record longer than that.
const (
	csvFirstBlockSize = 64 << 10
	csvBlockSize      = 4 << 20
)

// The splitter's syntax errors: errCSVQuote and errCSVBareQuote are
// encoding/csv's ErrQuote and ErrBareQuote.
var (
	errCSVQuote     = errors.New(`extraneous or missing " in quoted field`)
	errCSVBareQuote = errors.New(`bare " in non-quoted field`)
	errCSVOpenQuote = errors.New(`quoted field not closed at the end of input`)
	errCSVFields    = errors.New("too many fields")
	errCSVLong      = errors.New("record longer than the 1 GiB limit (an unclosed quote?)")
)

// csvMaxRecord bounds the bytes of one record, and so the buffer a file
// whose quote is never closed grows to; a variable for the tests.
var csvMaxRecord = 1 << 30

// csvSyntaxError is a CSV syntax error at a line and byte column
// (both 1-based), like encoding/csv's ParseError.
type csvSyntaxError struct {
	Line, Column int64
	Err          error
}

func (e *csvSyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
}

func (e *csvSyntaxError) Unwrap() error { return e.Err }

// csvSplitter splits CSV input into records and fields. The zero value
// is not usable; see newCSVSplitter.
type csvSplitter struct {
	r     io.Reader
	comma byte
	block int // the buffer grows to this size (beyond only for a longer record)
	// maxFields > 0 bounds the fields of a record (and the memory a
	// hostile record of delimiters takes).
	maxFields int
	buf       []byte // buf[pos:end] is data not yet split
	pos       int
	end       int
	eof       bool  // r is at its end: buf[end] is the end of input
	line      int64 // line number of buf[pos]

	// The records of the last call to next, valid until the next call:
	// record i has fields recEnd[i-1]..recEnd[i] (recEnd[-1] = 0), field
	// j is buf[spans[j].start:spans[j].stop], and the record starts on
	// line recLine[i].
	spans   []csvSpan
	recEnd  []int
	recLine []int64
	fix     []int // fields of the record being split to unescape
}

// csvSpan is where a field is in the splitter's buffer.
type csvSpan struct{ start, stop int }

func newCSVSplitter(r io.Reader, comma byte) *csvSplitter {
	return &csvSplitter{r: r, comma: comma, block: csvBlockSize, line: 1}
}

// field returns field j of the last call to next.
func (s *csvSplitter) field(j int) []byte { return s.buf[s.spans[j].start:s.spans[j].stop] }

// next splits up to max records (max > 0). It returns the number of
// records, io.EOF at a clean end of input, or a syntax or read error
// (with the records before it). At least one record unless it returns
// an error. Their bytes stay valid until the next call.
func (s *csvSplitter) next(max int) (int, error) {
	s.spans, s.recEnd, s.recLine = s.spans[:0], s.recEnd[:0], s.recLine[:0]
	for {
		n, err := s.split(max)
		if n > 0 || err != nil {
			return n, err
		}
		if s.eof {
			return 0, io.EOF
		}
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
}

// fill moves the unsplit data to the front of the buffer (growing it
// when that data fills it) and reads until the buffer is full or the
// input ends.
func (s *csvSplitter) fill() error {
	if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	if s.buf == nil {
		// Small first, so that a small input takes little memory.
		s.buf = make([]byte, min(s.block, csvFirstBlockSize))
	} else if s.end == len(s.buf) || len(s.buf) < s.block {
		// One record fills the buffer, or the input goes on: double it.
		if s.end == len(s.buf) && s.end >= csvMaxRecord {
			return &csvSyntaxError{Line: s.line, Column: 1, Err: errCSVLong}
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for s.end < len(s.buf) {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err == io.EOF {
			s.eof = true
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// split splits the complete records in buf[pos:end], up to max. At the
// end of input the last record may end without a newline.
func (s *csvSplitter) split(max int) (int, error) {
	n := 0
	b := s.buf[:s.end]
	for n < max && s.pos < s.end {
		p := s.pos
		// Empty lines.
		if b[p] == '\n' {
			s.pos++
			s.line++
			continue
		}
		if b[p] == '\r' {
			if p+1 < len(b) && b[p+1] == '\n' {
				s.pos += 2
				s.line++
				continue
			}
			if p+1 == len(b) {
				if s.eof {
					s.pos++
					continue
				}
				break
			}
		}
		nl := bytes.IndexByte(b[p:], '\n')
		var line []byte
		if nl >= 0 {
			line = b[p : p+nl]
		} else if s.eof {
			line = b[p:]
		} else {
			break // the record may go on after the buffer
		}
		if bytes.IndexByte(line, '"') < 0 {
			// A bare line: split at the delimiters.
			s.recLine = append(s.recLine, s.line)
			stop := p + len(line)
			if len(line) > 0 && line[len(line)-1] == '\r' { // CRLF, or a CR at the end of input
				stop--
			}
			if !s.splitBare(p, stop) {
				return n, &csvSyntaxError{Line: s.line, Column: 1, Err: errCSVFields}
			}
			s.recEnd = append(s.recEnd, len(s.spans))
			s.pos = p + len(line)
			if nl >= 0 {
				s.pos++
				s.line++
			}
			n++
			continue
		}
		mark := len(s.spans)
		next, lines, ok, err := s.splitQuoted(p)
		if err != nil {
			return n, err
		}
		if !ok {
			s.spans = s.spans[:mark]
			break
		}
		s.recLine = append(s.recLine, s.line)
		s.recEnd = append(s.recEnd, len(s.spans))
		s.pos = next
		s.line += lines
		n++
	}
	return n, nil
}

// splitBare appends the fields of buf[from:to], a record without quotes,
// looking at eight bytes at a time for the delimiter. It returns false
// when the record has more than maxFields fields.
func (s *csvSplitter) splitBare(from, to int) bool {
	b := s.buf[:to]
	limit := len(s.spans) + s.maxFields
	const lo, hi7 = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	pat := lo * uint64(s.comma)
	fieldStart := from
	i := from
	for ; i+8 <= to; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:]) ^ pat
		// A byte of x is zero where b has the delimiter; m has its high
		// bit set for exactly those bytes.
		m := ^(((x & hi7) + hi7) | x | hi7)
		for m != 0 {
			j := i + bits.TrailingZeros64(m)>>3
			s.spans = append(s.spans, csvSpan{fieldStart, j})
			fieldStart = j + 1
			m &= m - 1
		}
		if len(s.spans) > limit && s.maxFields > 0 {
			return false
		}
	}
	for ; i < to; i++ {
		if b[i] == s.comma {
			s.spans = append(s.spans, csvSpan{fieldStart, i})
			fieldStart = i + 1
		}
	}
	s.spans = append(s.spans, csvSpan{fieldStart, to})
	return s.maxFields <= 0 || len(s.spans) <= limit
}

// splitQuoted splits the record at buf[p], which has a quote somewhere,
// byte by byte. It returns where the next record starts and the lines
// the record spans; ok false when the record goes on after the buffer.
func (s *csvSplitter) splitQuoted(p int) (next int, lines int64, ok bool, err error) {
	s.fix = s.fix[:0]
	next, lines, ok, err = s.splitQuoted1(p)
	if ok {
		for _, j := range s.fix {
			s.spans[j].stop = s.unescape(s.spans[j].start, s.spans[j].stop)
		}
	}
	return next, lines, ok, err
}

// unescape turns the doubled quotes of buf[from:to] into one and its
// CRLFs into LF, in place; it returns the new end.
func (s *csvSplitter) unescape(from, to int) int {
	b := s.buf
	w := from
	for i := from; i < to; i++ {
		c := b[i]
		if c == '"' {
			i++ // the first of a doubled quote; keep the second
		} else if c == '\r' && b[i+1] == '\n' {
			continue
		}
		b[w] = b[i]
		w++
	}
	return w
}

func (s *csvSplitter) splitQuoted1(p int) (next int, lines int64, ok bool, err error) {
	b := s.buf[:s.end]
	comma := s.comma
	lineStart := p // for error columns
	synErr := func(at int, e error) error {
		return &csvSyntaxError{Line: s.line + lines, Column: int64(at-lineStart) + 1, Err: e}
	}
	limit := len(s.spans) + s.maxFields
	for {
		if len(s.spans) >= limit && s.maxFields > 0 {
			return 0, 0, false, synErr(p, errCSVFields)
		}
		// At the start of a field.
		if p < len(b) && b[p] == '"' {
			q := p + 1
			fix := false
			r := q
			var closing int
			for {
				i := bytes.IndexByte(b[r:], '"')
				if i < 0 {
					if s.eof {
						return 0, 0, false, synErr(p, errCSVOpenQuote)
					}
					return 0, 0, false, nil
				}
				r += i + 1
				if r < len(b) && b[r] == '"' {
					fix = true
					r++
					continue
				}
				if r == len(b) && !s.eof {
					return 0, 0, false, nil // a doubled quote may follow
				}
				closing = r - 1
				break
			}
			content := b[q:closing]
			if k := bytes.Count(content, []byte{'\n'}); k > 0 {
				lines += int64(k)
				lineStart = q + bytes.LastIndexByte(content, '\n') + 1
				fix = fix || bytes.Contains(content, []byte("\r\n"))
			}
			s.spans = append(s.spans, csvSpan{q, closing})
			if fix {
				// Unescaped once the record is complete: a record cut by
				// the end of the buffer is split again after a refill.
				s.fix = append(s.fix, len(s.spans)-1)
			}
			p = closing + 1
			switch {
			case p == len(b):
				if !s.eof {
					return 0, 0, false, nil
				}
				return p, lines, true, nil
			case b[p] == comma:
				p++
				continue
			case b[p] == '\n':
				return p + 1, lines + 1, true, nil
			case b[p] == '\r' && p+1 < len(b) && b[p+1] == '\n':
				return p + 2, lines + 1, true, nil
			case b[p] == '\r' && p+1 == len(b):
				if !s.eof {
					return 0, 0, false, nil
				}
				return p + 1, lines, true, nil
			default:
				return 0, 0, false, synErr(p, errCSVQuote)
			}
		}
		// A bare field: up to a delimiter or the end of the line.
		f := p
		for p < len(b) && b[p] != comma && b[p] != '\n' {
			if b[p] == '"' {
				return 0, 0, false, synErr(p, errCSVBareQuote)
			}
			p++
		}
		if p == len(b) {
			if !s.eof {
				return 0, 0, false, nil
			}
			stop := p
			if stop > f && b[stop-1] == '\r' {
				stop--
			}
			s.spans = append(s.spans, csvSpan{f, stop})
			return p, lines, true, nil
		}
		if b[p] == comma {
			s.spans = append(s.spans, csvSpan{f, p})
			p++
			continue
		}
		stop := p
		if stop > f && b[stop-1] == '\r' {
			stop--
		}
		s.spans = append(s.spans, csvSpan{f, stop})
		return p + 1, lines + 1, true, nil
	}
}
