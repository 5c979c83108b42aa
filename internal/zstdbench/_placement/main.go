// Command _placement shows that the speed of a klauspost zstd decoder on
// the same frames depends on where its frame decoder landed in the heap:
// the sequence loop (sequenceDecs_decodeSync_bmi2) keeps the three repeat
// offsets (sequenceDecs.prevOffset, 24 bytes at offset 144) in memory and
// updates them for every sequence, two of them with one 16-byte store. In
// one frame decoder in twelve (a 640-byte size class with an 8-byte
// header, 12 per 8 KiB span) that store crosses a 4 KiB page, and the
// decoder takes ~1.5x the CPU on the same frames (lineitem ZSTD pages:
// 168-171 vs 110-124 ms, same frames, same buffer). With DecodeAll
// rotating over the decoder's block decoders page by page, a process whose
// shared decoder got such a frame decoder reads ZSTD pages measurably
// slower: part of the run-to-run spread of the ZSTD read rows.
//
// RELOCATE=1 moves one decoder's frame decoder to chosen places instead
// (into typed padded slots) and times each: repeat offsets within one
// cache line 111-112 ms, across two lines 113-114, at 0xff0 (the store
// crossing a page) 167, at 0xff8 (only a load crossing) 112; on the
// strings pages 188-200 ms, and 343 with the store crossing. So the page
// crossing alone is the cost; an upstream fix (offsets in registers, or
// 8-byte stores) would remove it.
//
// Not part of the build (leading _); it reads and moves unexported state
// through reflect and unsafe, which no product code may do:
//
//	GOMAXPROCS=1 go run ./internal/zstdbench/_placement pages.zpages
//	RELOCATE=1 GOMAXPROCS=1 go run ./internal/zstdbench/_placement pages.zpages
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"github.com/klauspost/compress/zstd"
)

func field(v reflect.Value, name string) reflect.Value {
	f := v.FieldByName(name)
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

func main() {
	in, _ := os.ReadFile(os.Args[1])
	var pages [][]byte
	for len(in) > 0 {
		n, k := binary.Uvarint(in)
		pages = append(pages, in[k:k+int(n)])
		in = in[k+int(n):]
	}
	runtime.LockOSThread()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(1, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	buf := make([]byte, 0, 4<<20)
	if os.Getenv("RELOCATE") != "" {
		relocate(pages, buf, cpu)
		return
	}
	for i := 0; i < 24; i++ {
		d, _ := zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(1))
		for _, p := range pages[:20] {
			d.DecodeAll(p, buf[:0])
		}
		t := cpu()
		for r := 0; r < 3; r++ {
			for _, p := range pages {
				d.DecodeAll(p, buf[:0])
			}
		}
		el := (cpu() - t) / 3
		ch := field(reflect.ValueOf(d).Elem(), "decoders")
		bd, _ := ch.Recv()
		b := bd.Elem()
		lit := field(b, "literalBuf").Pointer()
		lf := field(b, "localFrame")
		fr := lf.Elem()
		hist := field(fr, "history")
		ht := field(hist, "huffTree").Pointer()
		decs := field(hist, "decoders")
		decsAddr := decs.UnsafeAddr()
		seq := field(b, "sequence")
		var seqp uintptr
		if seq.Len() > 0 {
			seqp = seq.Pointer()
		}
		ch.Send(bd)
		po := (decsAddr + 144) % 4096
		kind := ""
		if po/64 != (po+23)/64 {
			kind = "line-split"
		}
		if po+23 >= 4096 {
			kind = "PAGE-split"
		}
		_, _, _ = lit, ht, seqp
		fmt.Printf("inst %2d %6.1f ms prevOffset at %#x %s\n", i, el.Seconds()*1000, po, kind)
	}
}

// relocate moves a decoder's frame decoder to chosen addresses (into a
// typed slice of frame decoders, so the garbage collector still sees its
// pointers) and times the same frames with its repeat offsets at each:
// what placement alone costs.
func relocate(pages [][]byte, buf []byte, cpu func() time.Duration) {
	want := make([][]byte, len(pages))
	ref, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	for i, p := range pages {
		var err error
		if want[i], err = ref.DecodeAll(p, nil); err != nil {
			panic(err)
		}
	}
	// Where the 24 bytes of the repeat offsets fall: within one cache
	// line, across two lines of one page, across two pages.
	classes := map[string]func(a uintptr) bool{
		"in one line":  func(a uintptr) bool { return a%64 <= 40 },
		"across lines": func(a uintptr) bool { return a%64 > 40 && a%4096 <= 4072 },
		"across pages": func(a uintptr) bool { return a%4096 > 4072 },
	}
	for _, class := range []string{"in one line", "across lines", "across pages", "in one line", "across lines", "across pages"} {
		d, _ := zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(1))
		for _, p := range pages[:20] {
			d.DecodeAll(p, buf[:0])
		}
		ch := field(reflect.ValueOf(d).Elem(), "decoders")
		bd, _ := ch.Recv()
		lf := field(bd.Elem(), "localFrame")
		fr := lf.Elem()
		decs := field(field(fr, "history"), "decoders")
		off := field(decs, "prevOffset").UnsafeAddr() - fr.UnsafeAddr()
		// Slots of a struct whose padding shifts the frame decoder
		// by 8-byte steps, so that every class has one; typed, so the
		// garbage collector still sees the pointers.
		var slots []reflect.Value
		moved := false
		var at uintptr
		for pad := 8; pad <= 4096 && !moved; pad += 8 {
			t := reflect.StructOf([]reflect.StructField{
				{Name: "Pad", Type: reflect.ArrayOf(pad, reflect.TypeFor[byte]())},
				{Name: "F", Type: fr.Type()},
			})
			sl := reflect.MakeSlice(reflect.SliceOf(t), 4, 4)
			slots = append(slots, sl)
			for i := 1; i < sl.Len(); i++ {
				e := sl.Index(i).Field(1)
				if a := e.UnsafeAddr() + off; classes[class](a) {
					at = a % 4096
					e = reflect.NewAt(e.Type(), unsafe.Pointer(e.UnsafeAddr())).Elem()
					e.Set(fr)
					lf.Set(e.Addr())
					moved = true
					break
				}
			}
		}
		ch.Send(bd)
		if !moved {
			fmt.Printf("repeat offsets %s: no slot\n", class)
			continue
		}
		for i, p := range pages {
			out, err := d.DecodeAll(p, buf[:0])
			if err != nil || string(out) != string(want[i]) {
				panic(fmt.Sprintf("page %d differs after the move: %v", i, err))
			}
		}
		t := cpu()
		for r := 0; r < 3; r++ {
			for _, p := range pages {
				d.DecodeAll(p, buf[:0])
			}
		}
		el := (cpu() - t) / 3
		fmt.Printf("repeat offsets %-12s (at %#03x): %6.1f ms\n", class, at, el.Seconds()*1000)
		runtime.KeepAlive(slots)
	}
}
