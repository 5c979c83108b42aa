// Command _klauspost times klauspost's zstd DecodeAll on the page bodies of
// a pages file written by internal/snappy/_dumppages (uvarint length,
// body), with the options arrowpq uses and with others, beside
// ../_libzstd (libzstd on the same frames). Not part of the build
// (leading _):
//
//	GOMAXPROCS=1 go run ./internal/zstdbench/_klauspost pages.zpages rounds [variants]
//
// variants is a comma-separated subset of the variants' indices, in the
// order to run them (default all). INSTANCES=k replaces the variants by k
// decoders of the same options; CPUPROFILE=file writes a CPU profile.
// ENCODE=all (or a comma-separated subset) times compression of the
// decompressed pages instead, with pagecodec's encoder options and others.
//
// Each variant prints the decompressed bytes per second of thread CPU time
// (GB/s, 1e9 bytes), best and median of the rounds; variants alternate
// within a round so that load on the machine falls on all alike.
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/klauspost/compress/zstd"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type variant struct {
	name  string
	dec   *zstd.Decoder
	exact bool // destination capacity = page size (arrowpq before round 4)
}

func main() {
	runtime.LockOSThread()
	in, err := os.ReadFile(os.Args[1])
	check(err)
	rounds, _ := strconv.Atoi(os.Args[2])
	var pages [][]byte
	for len(in) > 0 {
		n, k := binary.Uvarint(in)
		pages = append(pages, in[k:k+int(n)])
		in = in[k+int(n):]
	}
	mk := func(opts ...zstd.DOption) *zstd.Decoder {
		d, err := zstd.NewReader(nil, opts...)
		check(err)
		return d
	}
	ours := []zstd.DOption{zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(max(runtime.NumCPU(), 1))}
	sizer := mk()
	// The first two share one decoder: decoders of the same options
	// differ in speed by where they landed in the heap (../_placement),
	// so only variants of one decoder compare cleanly.
	shared := mk(ours...)
	vs := []variant{
		{name: "arrowpq before (cap = page size)", dec: shared, exact: true},
		{name: "arrowpq (spare capacity)", dec: shared},
		{name: "concurrency 1", dec: mk(zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(1))},
		{name: "low memory", dec: mk(append(ours, zstd.WithDecoderLowmem(true))...)},
		{name: "no cap limit", dec: mk(zstd.WithDecoderConcurrency(1))},
		{name: "checksum ignored", dec: mk(append(ours, zstd.IgnoreChecksum(true))...)},
	}
	if k, _ := strconv.Atoi(os.Getenv("INSTANCES")); k > 0 {
		// k decoders of identical options (concurrency 1), each its
		// own variant: their speeds on the same frames differ by
		// instance (issue 17 round 4: one in six at 0.8 GB/s, the others
		// 1.1-1.2, the same one in every run).
		vs = vs[:0]
		for i := 0; i < k; i++ {
			vs = append(vs, variant{name: "concurrency 1, instance " + strconv.Itoa(i), dec: mk(zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(1))})
		}
	}
	if len(os.Args) > 3 { // a subset, in this order: "2,1"
		var sub []variant
		for _, f := range strings.Split(os.Args[3], ",") {
			i, err := strconv.Atoi(f)
			check(err)
			sub = append(sub, vs[i])
		}
		vs = sub
	}
	sizes := make([]int, len(pages))
	total := 0
	var raw [][]byte
	for i, p := range pages {
		out, err := sizer.DecodeAll(p, nil)
		check(err)
		sizes[i] = len(out)
		total += len(out)
		raw = append(raw, out)
	}
	if os.Getenv("ENCODE") != "" {
		encode(raw, rounds)
		return
	}
	buf := make([]byte, 0, slices.Max(sizes)+(slices.Max(sizes))/8+64)
	if f := os.Getenv("CPUPROFILE"); f != "" {
		w, err := os.Create(f)
		check(err)
		check(pprof.StartCPUProfile(w))
		defer pprof.StopCPUProfile()
	}
	res := make([][]float64, len(vs))
	for r := -1; r < rounds; r++ {
		for v := range vs {
			t0 := threadCPU()
			for i, p := range pages {
				dst := buf[:0]
				if vs[v].exact {
					dst = buf[:0:sizes[i]]
				}
				out, err := vs[v].dec.DecodeAll(p, dst)
				check(err)
				if len(out) != sizes[i] {
					panic("size")
				}
			}
			dt := threadCPU() - t0
			if r >= 0 {
				res[v] = append(res[v], float64(total)/dt.Seconds()/1e9)
			}
		}
	}
	fmt.Printf("%s: %d pages, %d bytes, %d rounds\n", os.Args[1], len(pages), total, rounds)
	for v := range vs {
		slices.Sort(res[v])
		med := res[v][len(res[v])/2]
		fmt.Printf("  klauspost %-34s best %.3f GB/s, median %.3f GB/s (%.1f ms)\n", vs[v].name, res[v][len(res[v])-1], med, float64(total)/med/1e6)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// encode times klauspost's EncodeAll of every page on its own with the
// options of pagecodec's Compressor and with others, and prints the
// compressed size of each.
func encode(raw [][]byte, rounds int) {
	total := 0
	for _, p := range raw {
		total += len(p)
	}
	mk := func(opts ...zstd.EOption) *zstd.Encoder {
		base := []zstd.EOption{zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false)}
		e, err := zstd.NewWriter(nil, append(base, opts...)...)
		check(err)
		return e
	}
	type encVariant struct {
		name string
		enc  *zstd.Encoder
	}
	vs := []encVariant{
		{"level 1 (arrowpq: fastest, all-literal entropy)", mk(zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithAllLitEntropyCompression(true))},
		{"level 1 without all-literal entropy", mk(zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithAllLitEntropyCompression(false))},
		{"level 1, lower encoder memory", mk(zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithAllLitEntropyCompression(true), zstd.WithLowerEncoderMem(true))},
		{"level 3 (default), all-literal entropy", mk(zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithAllLitEntropyCompression(true))},
		{"level 3 (default) without all-literal entropy", mk(zstd.WithEncoderLevel(zstd.SpeedDefault))},
		{"level 1, window 256 KiB", mk(zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithAllLitEntropyCompression(true), zstd.WithWindowSize(256<<10))},
		{"level 1, no entropy coding", mk(zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithNoEntropyCompression(true))},
	}
	if s := os.Getenv("ENCODE"); s != "all" {
		var sub []encVariant
		for _, f := range strings.Split(s, ",") {
			i, err := strconv.Atoi(f)
			check(err)
			sub = append(sub, vs[i])
		}
		vs = sub
	}
	res := make([][]float64, len(vs))
	packed := make([]int, len(vs))
	dst := make([]byte, 0, 32<<20)
	for r := -1; r < rounds; r++ {
		for v := range vs {
			n := 0
			t0 := threadCPU()
			for _, p := range raw {
				n += len(vs[v].enc.EncodeAll(p, dst[:0]))
			}
			dt := threadCPU() - t0
			packed[v] = n
			if r >= 0 {
				res[v] = append(res[v], float64(total)/dt.Seconds()/1e9)
			}
		}
	}
	fmt.Printf("%d pages, %d bytes, %d rounds\n", len(raw), total, rounds)
	for v := range vs {
		slices.Sort(res[v])
		med := res[v][len(res[v])/2]
		fmt.Printf("  klauspost %-48s %d bytes, best %.3f GB/s, median %.3f GB/s (%.1f ms)\n", vs[v].name, packed[v], res[v][len(res[v])-1], med, float64(total)/med/1e6)
	}
}
