package forge_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/forge"

	"github.com/arrowpq/arrowpq/internal/testshared"
)

// The campaign: N mutants of the corpus files, each read in a child
// process under a memory cap by arrowpq and by arrow-go's pqarrow, with the
// outcomes counted. Run it as
//
//	go test ./internal/forge -run TestCampaign -campaign.n=20000 -timeout 0
//
// Without -campaign.n, TestCampaign replays replayN mutants in this process
// through arrowpq only (a crash there fails the test run anyway).
var (
	campaignN     = flag.Int("campaign.n", 0, "mutants to read in child processes (0: replay a few in-process)")
	campaignSeed  = flag.Uint64("campaign.seed", 1, "seed of the mutants: mutant i is the same for the same seed")
	campaignProcs = flag.Int("campaign.procs", 1, "child processes at once, per engine")
	campaignMem   = flag.Int64("campaign.mem", 6<<30, "address-space limit of a child (bytes)")
	campaignEng   = flag.String("campaign.engines", "arrowpq,pqarrow", "engines to run")
	campaignKeep  = flag.String("campaign.keep", "", "directory to write the mutants with a bad outcome to")
	campaignMax   = flag.Int("campaign.maxfile", 64<<10, "largest corpus file to mutate (bytes)")
	campaignOut   = flag.String("campaign.out", "", "file to write the outcome table to (go test shows it with -v only)")
)

const (
	replayN = 200
	// hangAfter is how long one read may take.
	hangAfter = 5 * time.Second
	// bigAlloc is the allocation an outcome table counts.
	bigAlloc = 1 << 30
	childEnv = "FORGE_CAMPAIGN_CHILD"
)

var testdata = filepath.Join("..", "..", "..", "shared", "testdata")

// corpus returns the parsed corpus files, sorted by path: all Parquet files
// of parquet-testing up to -campaign.maxfile bytes (64 KiB, so that reads
// are quick) whose footer parses.
var corpus = sync.OnceValues(func() ([]*forge.File, error) {
	root := filepath.Join(testdata, "parquet-testing")
	var paths []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var files []*forge.File
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if len(b) > *campaignMax {
			continue
		}
		rel, _ := filepath.Rel(root, p)
		f, err := forge.Parse(rel, b)
		if err != nil {
			continue // an encrypted footer, or a bad_data file
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, errors.New("no corpus files")
	}
	return files, nil
})

// mutant returns mutant i of the campaign with the given seed: nine in ten
// forge fields (internal/forge), one in ten flips, cuts or splices bytes.
func mutant(files []*forge.File, seed uint64, i int) (*forge.File, forge.Mutant) {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	f := files[rng.IntN(len(files))]
	plan := make([]byte, 48)
	for j := range plan {
		plan[j] = byte(rng.Uint32())
	}
	if rng.IntN(10) != 0 {
		if m, ok := f.Mutate(forge.NewPlan(plan)); ok {
			return f, m
		}
	}
	return f, forge.MutateBytes(f.Data, forge.NewPlan(plan))
}

// Outcomes of one read.
const (
	outError = "clean error"
	outOK    = "read OK"
	outPanic = "panic"
	outCrash = "crash"
	outHang  = "hang > 5 s"
	outAlloc = "alloc > 1 GiB"
)

var outcomes = []string{outError, outOK, outPanic, outCrash, outHang, outAlloc}

// readWith reads data fully with an engine and returns the outcome and
// error text; a panic on this goroutine is recovered and reported.
func readWith(engine string, data []byte) (outcome, detail string) {
	defer func() {
		if v := recover(); v != nil {
			outcome, detail = outPanic, fmt.Sprint(v)
		}
	}()
	var err error
	switch engine {
	case "arrowpq":
		err = readArrowpq(data)
		if errors.Is(err, arrowpq.ErrInternal) {
			return outPanic, err.Error()
		}
	case "pqarrow":
		err = readPqarrow(data)
	default:
		return outCrash, "unknown engine " + engine
	}
	if err != nil {
		return outError, err.Error()
	}
	return outOK, ""
}

func readArrowpq(data []byte) error {
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
		if err := array.ValidateRecordFull(r.RecordBatch()); err != nil {
			return fmt.Errorf("%w: invalid batch: %v", arrowpq.ErrInternal, err)
		}
	}
	return r.Err()
}

func readPqarrow(data []byte) error {
	rdr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return err
	}
	tbl.Release()
	return nil
}

func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func TestCampaign(t *testing.T) {
	if spec := os.Getenv(childEnv); spec != "" {
		runChild(t, spec)
		return
	}
	testshared.Need(t, filepath.Join(testdata, "parquet-testing"))
	files, err := corpus()
	if err != nil {
		t.Fatal(err)
	}
	if *campaignN == 0 {
		replay(t, files)
		return
	}
	start := time.Now()
	var tables []string
	for _, engine := range strings.Split(*campaignEng, ",") {
		counts, bad, maxAlloc := runCampaign(t, engine, files)
		tables = append(tables, formatRow(engine, counts, maxAlloc))
		for _, b := range bad {
			t.Logf("%s: %s", engine, b)
		}
		if engine == "arrowpq" {
			for _, o := range []string{outPanic, outCrash, outHang, outAlloc} {
				if counts[o] > 0 {
					t.Errorf("arrowpq: %d mutants ended in %s", counts[o], o)
				}
			}
		}
	}
	report := fmt.Sprintf("campaign: %d mutants of %d corpus files, seed %d, %s\n%s\n%s\n",
		*campaignN, len(files), *campaignSeed, time.Since(start).Round(time.Second), header(), strings.Join(tables, "\n"))
	t.Log(report)
	if *campaignOut != "" {
		if err := os.WriteFile(*campaignOut, []byte(report), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func header() string {
	return "| engine | mutants | " + strings.Join(outcomes, " | ") + " | largest allocation of a read that ended |\n|---|---:|" + strings.Repeat("---:|", len(outcomes)+1)
}

func formatRow(engine string, counts map[string]int, maxAlloc uint64) string {
	total := 0
	for _, n := range counts {
		total += n
	}
	row := fmt.Sprintf("| %s | %d |", engine, total)
	for _, o := range outcomes {
		row += fmt.Sprintf(" %d |", counts[o])
	}
	return row + fmt.Sprintf(" %.1f MiB |", float64(maxAlloc)/(1<<20))
}

// replay reads the first replayN mutants in this process with arrowpq.
func replay(t *testing.T, files []*forge.File) {
	counts := map[string]int{}
	for i := range replayN {
		f, m := mutant(files, *campaignSeed, i)
		done := make(chan [2]string, 1)
		before := heapAllocs()
		go func() {
			o, d := readWith("arrowpq", m.Data)
			done <- [2]string{o, d}
		}()
		select {
		case r := <-done:
			o := r[0]
			if heapAllocs()-before > bigAlloc {
				o = outAlloc
			}
			counts[o]++
			if o != outError && o != outOK {
				t.Errorf("mutant %d of %s (%s): %s: %s", i, f.Name, strings.Join(m.What, "; "), o, r[1])
			}
		case <-time.After(hangAfter):
			t.Fatalf("mutant %d of %s (%s): %s", i, f.Name, strings.Join(m.What, "; "), outHang)
		}
	}
	t.Logf("replayed %d mutants: %v", replayN, counts)
}

// runChild reads mutants [from, to) with one engine and reports each on
// stdout: "S i" before the read, "R i outcome alloc" after it. The parent
// learns a crash or a hang from an S without its R.
func runChild(t *testing.T, spec string) {
	var engine string
	var from, to int
	var seed uint64
	var mem int64
	if _, err := fmt.Sscanf(spec, "%s %d %d %d %d %d", &engine, &from, &to, &seed, &mem, campaignMax); err != nil {
		t.Fatalf("bad %s %q: %v", childEnv, spec, err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: uint64(mem), Max: uint64(mem)}); err != nil {
		t.Fatalf("setrlimit: %v", err)
	}
	files, err := corpus()
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := from; i < to; i++ {
		_, m := mutant(files, seed, i)
		fmt.Fprintf(out, "S %d\n", i)
		out.Flush()
		before := heapAllocs()
		o, _ := readWith(engine, m.Data)
		fmt.Fprintf(out, "R %d %s|%d\n", i, o, heapAllocs()-before)
	}
	out.Flush()
}

// runCampaign runs the campaign for one engine in child processes, each
// taking a contiguous share of the mutants and restarted past a mutant
// that killed it or hung.
func runCampaign(t *testing.T, engine string, files []*forge.File) (map[string]int, []string, uint64) {
	n := *campaignN
	procs := max(1, *campaignProcs)
	var mu sync.Mutex
	counts := map[string]int{}
	var bad []string
	var maxAlloc uint64
	record := func(i int, o, detail string, alloc uint64) {
		mu.Lock()
		defer mu.Unlock()
		counts[o]++
		maxAlloc = max(maxAlloc, alloc)
		if o == outError || o == outOK {
			return
		}
		f, m := mutant(files, *campaignSeed, i)
		bad = append(bad, fmt.Sprintf("mutant %d of %s (%s): %s %s", i, f.Name, strings.Join(m.What, "; "), o, detail))
		if *campaignKeep != "" {
			os.MkdirAll(*campaignKeep, 0o755)
			os.WriteFile(filepath.Join(*campaignKeep, fmt.Sprintf("%s-%s-%06d.parquet", engine, strings.Fields(o)[0], i)), m.Data, 0o644)
		}
	}
	var wg sync.WaitGroup
	for p := range procs {
		lo, hi := n*p/procs, n*(p+1)/procs
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo < hi {
				next, err := runShare(engine, lo, hi, record)
				if err != nil {
					t.Errorf("%s: %v", engine, err)
					return
				}
				lo = next
			}
		}()
	}
	wg.Wait()
	return counts, bad, maxAlloc
}

// runShare runs one child on mutants [from, to) and returns where the next
// child must start: to when the child finished, past the mutant it died
// or hung on otherwise.
func runShare(engine string, from, to int, record func(i int, o, detail string, alloc uint64)) (int, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCampaign$")
	// The child gets the parent's settings, so that mutant i is the same
	// file and plan on both sides.
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %d %d %d", childEnv, engine, from, to, *campaignSeed, *campaignMem, *campaignMax), "GOTRACEBACK=single")
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 64 << 10}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return from, err
	}
	if err := cmd.Start(); err != nil {
		return from, err
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	pending := -1 // the mutant being read
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				cmd.Wait()
				if pending < 0 {
					return to, nil
				}
				o := outCrash
				msg := stderr.String()
				if strings.Contains(msg, "panic:") && !strings.Contains(msg, "fatal error:") {
					o = outPanic
				}
				record(pending, o, firstLine(msg), 0)
				return pending + 1, nil
			}
			switch {
			case strings.HasPrefix(line, "S "):
				pending, _ = strconv.Atoi(line[2:])
				timer.Reset(hangAfter)
			case strings.HasPrefix(line, "R "):
				f := strings.SplitN(line[2:], " ", 2)
				i, _ := strconv.Atoi(f[0])
				o, allocText, _ := strings.Cut(f[1], "|")
				alloc, _ := strconv.ParseUint(allocText, 10, 64)
				if alloc > bigAlloc {
					record(i, outAlloc, fmt.Sprintf("(%d bytes; read ended in %s)", alloc, o), alloc)
				} else {
					record(i, o, "", alloc)
				}
				pending = -1
				timer.Reset(time.Hour)
			}
		case <-timer.C:
			cmd.Process.Kill()
			for range lines {
			}
			cmd.Wait()
			record(pending, outHang, "", 0)
			return pending + 1, nil
		}
	}
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "runtime:") {
			return l
		}
	}
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
