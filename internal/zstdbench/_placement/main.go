// Command _placement shows that the speed of a klauspost zstd decoder on
// the same frames depends on where its frame decoder landed in the heap:
// the sequence loop (sequenceDecs_decodeSync_bmi2) loads and stores the
// three repeat offsets (sequenceDecs.prevOffset, 24 bytes at offset 144)
// in memory for every sequence, with 16-byte moves, and in one frame
// decoder in twelve (a 640-byte size class, 12 per 8 KiB span) they
// straddle a 4 KiB page. Such a decoder takes ~1.5x the CPU time of the
// others (lineitem ZSTD pages: 168-171 vs 110-124 ms, same frames, same
// buffer). With DecodeAll rotating over the decoder's block decoders page
// by page, a process whose shared decoder got such a frame decoder reads
// ZSTD pages measurably slower: part of the run-to-run spread of the ZSTD
// read rows. Not part of the build (leading _); it reads unexported
// fields through reflect, which no product code may do:
//
//	GOMAXPROCS=1 go run ./internal/zstdbench/_placement pages.zpages
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
