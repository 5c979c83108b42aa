//go:build linux

package benchmarks

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// hugePageSize is the size of a transparent huge page on amd64 and arm64
// with 4 KiB pages.
const hugePageSize = 2 << 20

// thpMode returns the kernel's transparent huge page policy, the bracketed
// word of /sys/kernel/mm/transparent_hugepage/enabled: "always" backs all
// anonymous memory with huge pages where it can (the Go heap included),
// "madvise" only what a program marks MADV_HUGEPAGE (the Go runtime marks
// none of its heap since Go 1.21.4), "never" none.
func thpMode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	if i, j := bytes.IndexByte(b, '['), bytes.IndexByte(b, ']'); i >= 0 && j > i {
		return string(b[i+1 : j])
	}
	return ""
}

// adviseHeapHuge marks every anonymous read-write mapping of the process
// of at least a huge page (the Go heap's arenas; also goroutine stack
// spans and the runtime's metadata) MADV_HUGEPAGE, so that the kernel
// faults them in 2 MiB at a time under the "madvise" policy, as it does
// everything under "always". It returns the bytes advised. The heap grows
// by new mappings, so it is called again before every read.
//
// For the benchmarks only (ARROWPQ_BENCH_THP=1): it shows what a read costs
// where the heap is backed by huge pages. The library does not do it: the
// policy is the program's, and it has two costs the Go runtime stopped
// marking its heap for (golang/go#61718, #64332): under common kernel
// settings a fault on marked memory may stall in direct compaction, and
// khugepaged can fill the holes the scavenger returned, so RSS grows past
// what the runtime accounts for.
func adviseHeapHuge() (int64, error) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var total int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "lo-hi perms offset dev inode [path]": anonymous mappings have
		// inode 0 and no path.
		fields := strings.Fields(sc.Text())
		if len(fields) != 5 || fields[1] != "rw-p" || fields[4] != "0" {
			continue
		}
		var lo, hi uintptr
		if _, err := fmt.Sscanf(fields[0], "%x-%x", &lo, &hi); err != nil {
			return total, fmt.Errorf("/proc/self/maps line %q: %w", sc.Text(), err)
		}
		lo = (lo + hugePageSize - 1) &^ (hugePageSize - 1)
		hi &^= hugePageSize - 1
		if hi <= lo {
			continue
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, syscall.MADV_HUGEPAGE); e != 0 {
			return total, fmt.Errorf("madvise %#x-%#x: %w", lo, hi, e)
		}
		total += int64(hi - lo)
	}
	return total, sc.Err()
}

// hugePageRate returns the bytes per second at which new anonymous memory
// marked MADV_HUGEPAGE is touched (a fault per huge page the kernel could
// give, a fault per small page for the rest): the median over rounds of
// mapping 64 MiB plus a huge page, marking it, writing a byte of each
// small page and unmapping it. Zero when marking fails.
func hugePageRate(rounds int) float64 {
	const size = 64<<20 + hugePageSize
	d := touchNewMemory(rounds, size, func(b []byte) bool {
		lo := (uintptr(unsafe.Pointer(&b[0])) + hugePageSize - 1) &^ (hugePageSize - 1)
		_, _, e := syscall.Syscall(syscall.SYS_MADVISE, lo, size-hugePageSize, syscall.MADV_HUGEPAGE)
		return e == 0
	})
	if d <= 0 {
		return 0
	}
	return size / d.Seconds()
}

// TestAdviseHeapHuge: after adviseHeapHuge, the kernel reports the
// mapping that holds a new large heap object as eligible for huge pages
// (/proc/self/smaps "THPeligible: 1"), unless its policy is "never".
func TestAdviseHeapHuge(t *testing.T) {
	mode := thpMode()
	if mode == "" || mode == "never" {
		t.Skipf("transparent huge pages: %q", mode)
	}
	probe := make([]byte, 8<<20)
	n, err := adviseHeapHuge()
	if err != nil {
		t.Fatal(err)
	}
	if n < int64(len(probe))/2 {
		t.Fatalf("advised %d bytes, less than the %d-byte probe's whole huge pages", n, len(probe))
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	addr := uintptr(unsafe.Pointer(&probe[0]))
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		var lo, hi uintptr
		if _, err := fmt.Sscanf(line, "%x-%x ", &lo, &hi); err == nil && strings.Contains(line, " rw") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "THPeligible:") {
			if strings.TrimSpace(strings.TrimPrefix(line, "THPeligible:")) != "1" {
				t.Errorf("the probe's mapping %s", line)
			}
			return
		}
	}
	if !strings.Contains(string(smaps), "THPeligible:") {
		t.Skip("this kernel's smaps has no THPeligible field")
	}
	t.Errorf("no THPeligible line for the mapping of %#x", addr)
}
