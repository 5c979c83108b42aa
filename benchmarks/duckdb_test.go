package benchmarks

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
)

// The DuckDB comparison of issue 17: arrowpq and DuckDB (the oracle's
// pinned DuckDB 1.5.5, through its Node API) read the same files, and
// write the same data, in the same run. DuckDB runs in long-lived Node
// processes (duckdb.mjs), one per thread setting, fed statements over
// stdin, so that its start-up is outside every timing. Each round runs
// every contender once, alternating, so that load from elsewhere on the
// machine falls on all of them alike; the figures are the median (and
// min, max) over the rounds. See docs/performance.md, "Against DuckDB".

// duckProc is one DuckDB instance in a Node process.
type duckProc struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	threads int
}

// duckReply is duckdb.mjs's answer to one statement.
type duckReply struct {
	Ms      float64          `json:"ms"`
	CPUMs   float64          `json:"cpuMs"`
	Rows    []map[string]any `json:"rows"`
	Profile string           `json:"profile"`
	Error   string           `json:"error"`
}

var (
	duckProcs   = map[int]*duckProc{}
	duckProcsMu sync.Mutex
)

// needDuckDB skips tb with one line when the oracle's DuckDB is not
// installed and cannot be (no ../shared/oracle, no node, no registry).
func needDuckDB(tb testing.TB) {
	tb.Helper()
	oracle.Need(tb)
	if _, err := exec.LookPath("node"); err != nil {
		tb.Skip("duckdb comparison: node is not installed")
	}
	if err := oracle.Install(); err != nil {
		tb.Skipf("duckdb comparison: %v", err)
	}
}

// duckDB returns the process-wide DuckDB instance with the given number of
// threads, starting it on first use. It lives until the test binary ends.
func duckDB(tb testing.TB, threads int) *duckProc {
	tb.Helper()
	needDuckDB(tb)
	duckProcsMu.Lock()
	defer duckProcsMu.Unlock()
	if p, ok := duckProcs[threads]; ok {
		return p
	}
	_, here, _, _ := runtime.Caller(0)
	profile := filepath.Join(os.TempDir(), fmt.Sprintf("arrowpq-duckdb-%d-%d.json", os.Getpid(), threads))
	cmd := exec.Command("node", filepath.Join(filepath.Dir(here), "duckdb.mjs"), oracle.Home(), strconv.Itoa(threads), profile)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("duckdb: start node: %v", err)
	}
	p := &duckProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), threads: threads}
	duckProcs[threads] = p
	return p
}

// do sends one statement (op "run" or "profile", see duckdb.mjs) and
// waits for the answer.
func (p *duckProc) do(op, sql string) (duckReply, error) {
	req, err := json.Marshal(map[string]string{"op": op, "sql": sql})
	if err != nil {
		return duckReply{}, err
	}
	if _, err := p.in.Write(append(req, '\n')); err != nil {
		return duckReply{}, fmt.Errorf("duckdb (%d threads): %w", p.threads, err)
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return duckReply{}, fmt.Errorf("duckdb (%d threads): %w", p.threads, err)
	}
	var r duckReply
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return duckReply{}, fmt.Errorf("duckdb (%d threads) reply: %w", p.threads, err)
	}
	if r.Error != "" {
		return r, fmt.Errorf("duckdb (%d threads): %s: %s", p.threads, r.Error, abbreviate(sql))
	}
	return r, nil
}

func (p *duckProc) must(tb testing.TB, op, sql string) duckReply {
	tb.Helper()
	r, err := p.do(op, sql)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func abbreviate(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// duckProfile is the part of DuckDB's JSON profile (PRAGMA
// enable_profiling='json') that the harness reads: a tree of operators,
// each with its operator_type and operator_timing in seconds, under a root
// that carries the query's latency and cpu_time (the sum of the operator
// timings) in seconds. With several threads an operator's timing is the
// sum over the threads that ran it. The timings are wall clock per thread:
// on a loaded machine they include time spent descheduled.
type duckProfile struct {
	Latency        float64       `json:"latency"`
	CPUTime        float64       `json:"cpu_time"`
	OperatorType   string        `json:"operator_type"`
	OperatorTiming float64       `json:"operator_timing"`
	Children       []duckProfile `json:"children"`
}

// scanTime is what the harness takes from a DuckDB profile.
type scanTime struct {
	// scan is the time of the TABLE_SCAN operators (summed, should a plan
	// hold several), operators that of all operators, latency the query's.
	scan, operators, latency time.Duration
}

// parseScanTime reads a DuckDB JSON profile. A profile without a
// TABLE_SCAN is an error: the query did not scan a table, so there is
// nothing to compare with.
func parseScanTime(profile string) (scanTime, error) {
	var root duckProfile
	if err := json.Unmarshal([]byte(profile), &root); err != nil {
		return scanTime{}, fmt.Errorf("duckdb profile: %w", err)
	}
	var secs float64
	found := false
	var walk func(n *duckProfile)
	walk = func(n *duckProfile) {
		if n.OperatorType == "TABLE_SCAN" {
			secs += n.OperatorTiming
			found = true
		}
		for i := range n.Children {
			walk(&n.Children[i])
		}
	}
	walk(&root)
	if !found {
		return scanTime{}, errors.New("duckdb profile: no TABLE_SCAN operator")
	}
	return scanTime{scan: seconds(secs), operators: seconds(root.CPUTime), latency: seconds(root.Latency)}, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// scanQuery is the query DuckDB times on a file: every column is read and
// hashed (COLUMNS(*) expands to one bit_xor(hash(c)) per top-level
// column), so no column can be skipped, and the aggregate is a few
// numbers, so the result costs nothing to return.
func scanQuery(path string) string {
	return fmt.Sprintf("SELECT count(*) AS n, bit_xor(hash(COLUMNS(*))) FROM read_parquet(%s)", sqlString(path))
}

// Wide file: wideColumns INT64 columns × wideRows rows (scaled by
// $ARROWPQ_BENCH_SCALE, at least 1000), one row group, written by DuckDB
// with dictionary pages. Column k holds hash(i*wideColumns+k) modulo
// wideCardinality(k, rows): at full size 16 to 2,048 distinct values,
// index bit widths 4 to 11.
const (
	wideColumns = 2000
	wideRows    = 20_000
)

func wideScaledRows() int {
	return Dataset{Rows: wideRows}.ScaledRows()
}

// wideCardinality is the number of distinct values of column k of the wide
// file: 2^(4+k%8), 16 to 2,048, but at most rows/8, so that DuckDB keeps
// dictionary-encoding the columns of a small file (it falls back to PLAIN
// for 512 distinct values in 2,000 rows, and for 4,096 in 20,000).
func wideCardinality(k, rows int) int {
	return max(2, min(1<<(4+k%8), rows/8))
}

// wideSQL is the COPY statement that writes the wide file to path.
func wideSQL(path string, rows int, codec compress.Compression) string {
	var cols strings.Builder
	for k := range wideColumns {
		if k > 0 {
			cols.WriteString(", ")
		}
		fmt.Fprintf(&cols, "(hash(i * %d + %d) %% %d)::BIGINT AS c%d", wideColumns, k, wideCardinality(k, rows), k)
	}
	return fmt.Sprintf("COPY (SELECT %s FROM range(%d) t(i)) TO %s (FORMAT parquet, ROW_GROUP_SIZE %d, COMPRESSION %s)",
		cols.String(), rows, sqlString(path), rows, strings.ToLower(codec.String()))
}

// wideFile writes (once, into the bench cache) the wide file with DuckDB
// and returns its path.
func wideFile(tb testing.TB, codec compress.Compression) string {
	dir := filepath.Join(os.TempDir(), "arrowpq-bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	rows := wideScaledRows()
	path := filepath.Join(dir, fmt.Sprintf("wide-%dx%d-%s-duckdb.parquet", wideColumns, rows, codec))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + fmt.Sprintf(".tmp%d", os.Getpid())
	duckDB(tb, 1).must(tb, "run", wideSQL(tmp, rows, codec))
	if err := checkWideFile(tmp, rows); err != nil {
		os.Remove(tmp)
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
	return path
}

// checkWideFile checks, through arrowpq's reader, that path is what the
// issue asks for: one row group of rows rows, wideColumns INT64 column
// chunks, each with a dictionary page and dictionary-encoded data pages.
func checkWideFile(path string, rows int) error {
	r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{Parallelism: 1})
	if err != nil {
		return err
	}
	defer r.Close()
	md := r.Metadata()
	if n := len(md.Meta.RowGroups); n != 1 {
		return fmt.Errorf("%s: %d row groups, want 1", path, n)
	}
	if n := md.Meta.RowGroups[0].NumRows; n != int64(rows) {
		return fmt.Errorf("%s: %d rows, want %d", path, n, rows)
	}
	if n := len(md.Meta.RowGroups[0].Columns); n != wideColumns {
		return fmt.Errorf("%s: %d columns, want %d", path, n, wideColumns)
	}
	for i := range wideColumns {
		cc, err := md.ColumnChunk(0, i)
		if err != nil {
			return err
		}
		if cc.Type.String() != "INT64" {
			return fmt.Errorf("%s: column %d is %v, want INT64", path, i, cc.Type)
		}
		if cc.DictionaryPageOffset == nil {
			return fmt.Errorf("%s: column %d has no dictionary page", path, i)
		}
		dict := false
		for _, e := range cc.Encodings {
			switch e.String() {
			case "PLAIN_DICTIONARY", "RLE_DICTIONARY":
				dict = true
			}
		}
		if !dict {
			return fmt.Errorf("%s: column %d encodings %v: no dictionary encoding", path, i, cc.Encodings)
		}
		for _, s := range cc.EncodingStats {
			if s.PageType.String() == "DATA_PAGE" || s.PageType.String() == "DATA_PAGE_V2" {
				if e := s.Encoding.String(); e != "PLAIN_DICTIONARY" && e != "RLE_DICTIONARY" {
					return fmt.Errorf("%s: column %d has %d data pages in %s", path, i, s.Count, e)
				}
			}
		}
	}
	return nil
}

// samples holds one measure over the rounds.
type samples []float64

func (s samples) median() float64 {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

func (s samples) min() float64 { return slices.Min(s) }
func (s samples) max() float64 { return slices.Max(s) }

// spread renders "median (min–max)" with the given number of decimals.
func (s samples) spread(prec int) string {
	if len(s) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.*f (%.*f–%.*f)", prec, s.median(), prec, s.min(), prec, s.max())
}

// readFile is a file the read comparison reads.
type readFile struct {
	name  string // data=…/codec=…
	path  string
	bytes int64 // decoded Arrow size, from arrowpq's read
	rows  int64
}

// readFiles returns the files of the read comparison: the datasets of
// BenchmarkRead (the same pqarrow-written files) and the wide file, each
// with SNAPPY and ZSTD.
func readFiles(tb testing.TB) []readFile {
	var files []readFile
	for _, d := range Datasets {
		for _, codec := range benchCodecs {
			readInputs(tb, d.Name)
			files = append(files, readFile{name: fmt.Sprintf("data=%s/codec=%s", d.Name, codec), path: pqarrowFile(tb, d.Name, codec)})
		}
	}
	for _, codec := range benchCodecs {
		files = append(files, readFile{name: fmt.Sprintf("data=wide/codec=%s", codec), path: wideFile(tb, codec)})
	}
	return files
}

// readResult is the read comparison of one file at one thread setting.
type readResult struct {
	file    readFile
	threads string // "1" or "all"
	// Milliseconds per read: arrowpq with the default allocator and with
	// RecycleBuffers (wall and process CPU), DuckDB's query (wall, Node
	// process CPU) and its TABLE_SCAN operator; scanCPU estimates the
	// scan's CPU time as the query's CPU time times the scan's share of the
	// operator timings.
	ours, oursCPU, pool, poolCPU, query, queryCPU, scan, scanCPU samples
	// Per-round ratios (each round's figures side by side, so that a slow
	// phase of the machine falls on both): arrowpq ÷ scan operator (wall)
	// and arrowpq CPU ÷ the scan's estimated CPU.
	oursScan, oursScanCPU samples
	// Bytes allocated per read (runtime.MemStats.TotalAlloc delta).
	alloc, poolAlloc samples
}

// duckViews has the DuckDB comparison read strings and binaries as views
// (ReadOptions.Views), the layout of DuckDB's own string vectors.
var duckViews bool

// duckTHP has ourRead mark the heap MADV_HUGEPAGE before each read
// (adviseHeapHuge), for ARROWPQ_BENCH_THP=1.
var duckTHP bool

// ourRead reads path once with arrowpq and returns the wall time, the
// process CPU time, the bytes allocated, and the rows and Arrow bytes of
// the batches.
func ourRead(tb testing.TB, path string, parallel, recycle bool) (wall, cpu time.Duration, alloc uint64, rows, bytes int64) {
	opts := &arrowpq.ReadOptions{BatchSize: batchRows, Parallelism: 1, RecycleBuffers: recycle, Views: duckViews}
	if parallel {
		opts.Parallelism = 0
	}
	runtime.GC()
	if duckTHP {
		if _, err := adviseHeapHuge(); err != nil {
			tb.Fatal(err)
		}
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0, t0 := processCPU(), time.Now()
	r, err := arrowpq.OpenFile(path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for r.Next() {
		rec := r.RecordBatch()
		rows += rec.NumRows()
		bytes += arrowBytes(rec)
	}
	if err := r.Err(); err != nil {
		tb.Fatal(err)
	}
	r.Close()
	wall, cpu = time.Since(t0), processCPU()-cpu0
	runtime.ReadMemStats(&ms1)
	return wall, cpu, ms1.TotalAlloc - ms0.TotalAlloc, rows, bytes
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// compareRead runs the read comparison of f: with warmUp, a first round
// that checks that DuckDB counts the rows arrowpq reads and records the
// file's rows and decoded Arrow bytes; then rounds rounds of arrowpq
// (default allocator, then RecycleBuffers), DuckDB's query, and the query
// again with DuckDB's profiler on, for its scan operator time. threads
// "1": arrowpq with Parallelism 1 under GOMAXPROCS(1) and DuckDB with 1
// thread; "all": Parallelism 0 under GOMAXPROCS(NumCPU) and DuckDB with
// NumCPU threads.
func compareRead(tb testing.TB, f readFile, threads string, rounds int, warmUp bool) readResult {
	parallel := threads == "all"
	procs := 1
	if parallel {
		procs = runtime.NumCPU()
	}
	duck := duckDB(tb, procs)
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)

	res := readResult{file: f, threads: threads}
	query := scanQuery(f.path)
	first := 0
	if warmUp {
		first = -1
	}
	for round := first; round < rounds; round++ {
		wall, cpu, alloc, rows, bytes := ourRead(tb, f.path, parallel, false)
		pwall, pcpu, palloc, _, _ := ourRead(tb, f.path, parallel, true)
		q := duck.must(tb, "run", query)
		p := duck.must(tb, "profile", query)
		st, err := parseScanTime(p.Profile)
		if err != nil {
			tb.Fatal(err)
		}
		scanCPU := p.CPUMs * float64(st.scan) / float64(max(st.operators, st.scan))
		if round < 0 {
			res.file.rows, res.file.bytes = rows, bytes
			if len(q.Rows) != 1 || fmt.Sprint(q.Rows[0]["n"]) != strconv.FormatInt(rows, 10) {
				tb.Fatalf("%s: duckdb counted %v rows, arrowpq read %d", f.name, q.Rows, rows)
			}
			continue
		}
		res.ours = append(res.ours, ms(wall))
		res.oursCPU = append(res.oursCPU, ms(cpu))
		res.alloc = append(res.alloc, float64(alloc))
		res.pool = append(res.pool, ms(pwall))
		res.poolCPU = append(res.poolCPU, ms(pcpu))
		res.poolAlloc = append(res.poolAlloc, float64(palloc))
		res.query = append(res.query, q.Ms)
		res.queryCPU = append(res.queryCPU, q.CPUMs)
		res.scan = append(res.scan, ms(st.scan))
		res.scanCPU = append(res.scanCPU, scanCPU)
		res.oursScan = append(res.oursScan, ms(wall)/ms(st.scan))
		res.oursScanCPU = append(res.oursScanCPU, ms(cpu)/scanCPU)
	}
	return res
}

// add appends the rounds of o to r.
func (r *readResult) add(o readResult) {
	r.ours = append(r.ours, o.ours...)
	r.oursCPU = append(r.oursCPU, o.oursCPU...)
	r.pool = append(r.pool, o.pool...)
	r.poolCPU = append(r.poolCPU, o.poolCPU...)
	r.query = append(r.query, o.query...)
	r.queryCPU = append(r.queryCPU, o.queryCPU...)
	r.scan = append(r.scan, o.scan...)
	r.scanCPU = append(r.scanCPU, o.scanCPU...)
	r.oursScan = append(r.oursScan, o.oursScan...)
	r.oursScanCPU = append(r.oursScanCPU, o.oursScanCPU...)
	r.alloc = append(r.alloc, o.alloc...)
	r.poolAlloc = append(r.poolAlloc, o.poolAlloc...)
}

// BenchmarkDuckDBRead compares arrowpq's read of each file with DuckDB's
// query and scan operator, at 1 thread and all threads (see
// compareRead; it sets GOMAXPROCS itself, so -cpu does not matter). A
// warm-up round runs first; each b.Loop iteration is one round of every
// contender, so ns/op is the round. The metrics are medians over the
// rounds, in milliseconds per read: ours-ms (default allocator),
// ours-pool-ms (RecycleBuffers), ours-cpu-ms (process CPU time of the
// default read), duckdb-query-ms, duckdb-cpu-ms (Node process CPU time of
// the query), duckdb-scan-ms (TABLE_SCAN operator time),
// duckdb-scan-cpu-ms (its estimated CPU time, see readResult); the ratios
// ours/scan and ours-cpu/scan-cpu (medians of the per-round ratios) and
// ours/query; and alloc/arrow, bytes allocated per default read ÷ decoded
// Arrow bytes. With threads=all DuckDB's operator times are sums over its
// threads: compare with the query time there. Run it with -benchtime 5x for five rounds;
// TestDuckDBTable prints the same comparison as a table.
func BenchmarkDuckDBRead(b *testing.B) {
	needDuckDB(b)
	for _, f := range readFiles(b) {
		for _, threads := range []string{"1", "all"} {
			b.Run(f.name+"/threads="+threads, func(b *testing.B) {
				res := compareRead(b, f, threads, 0, true)
				for b.Loop() {
					res.add(compareRead(b, res.file, threads, 1, false))
				}
				b.ReportMetric(res.ours.median(), "ours-ms")
				b.ReportMetric(res.pool.median(), "ours-pool-ms")
				b.ReportMetric(res.oursCPU.median(), "ours-cpu-ms")
				b.ReportMetric(res.query.median(), "duckdb-query-ms")
				b.ReportMetric(res.queryCPU.median(), "duckdb-cpu-ms")
				b.ReportMetric(res.scan.median(), "duckdb-scan-ms")
				b.ReportMetric(res.scanCPU.median(), "duckdb-scan-cpu-ms")
				b.ReportMetric(res.oursScan.median(), "ours/scan")
				b.ReportMetric(res.oursScanCPU.median(), "ours-cpu/scan-cpu")
				b.ReportMetric(res.ours.median()/res.query.median(), "ours/query")
				b.ReportMetric(res.alloc.median()/float64(res.file.bytes), "alloc/arrow")
			})
		}
	}
}

// writeResult is the write comparison of one dataset and codec.
type writeResult struct {
	name string
	// Milliseconds per write: arrowpq with its defaults for the codec
	// (wall and process CPU), arrowpq with DuckDB's row group size,
	// DuckDB's COPY (wall and Node process CPU).
	ours, oursCPU, oursRG, duck, duckCPU samples
	// Per-round ratios arrowpq ÷ DuckDB, wall and CPU.
	ratio, ratioCPU samples
	// Output sizes in bytes (the same every round).
	oursSize, oursRGSize, duckSize int64
}

// duckRowGroupRows is DuckDB's default ROW_GROUP_SIZE for COPY … (FORMAT
// parquet).
const duckRowGroupRows = 122_880

// writeComparison is the write comparison of one dataset and codec, 1
// thread each: arrowpq writing the in-memory record with Parallelism 1
// (through a plain *os.File, no fsync: DuckDB's COPY does not sync
// either, checked with strace), and DuckDB's COPY of a table it loaded
// into memory before timing (CREATE TABLE … AS FROM the dataset's SNAPPY
// file), both to files in one temporary directory. The caller holds
// GOMAXPROCS at 1.
type writeComparison struct {
	res                    writeResult
	duck                   *duckProc
	rec                    arrow.RecordBatch
	codec                  compress.Compression
	dir                    string
	ours, oursRG, duckPath string
}

func newWriteComparison(tb testing.TB, name string, codec compress.Compression) *writeComparison {
	c := &writeComparison{res: writeResult{name: fmt.Sprintf("data=%s/codec=%s", name, codec)}, duck: duckDB(tb, 1), codec: codec}
	src := pqarrowFile(tb, name, compress.Codecs.Snappy)
	c.rec = datasetRecord(tb, name)
	c.duck.must(tb, "run", fmt.Sprintf("CREATE OR REPLACE TABLE w AS FROM read_parquet(%s)", sqlString(src)))
	dir, err := os.MkdirTemp("", "arrowpq-duckdb-write-*")
	if err != nil {
		tb.Fatal(err)
	}
	c.dir = dir
	c.ours = filepath.Join(dir, "ours.parquet")
	c.oursRG = filepath.Join(dir, "ours-rg.parquet")
	c.duckPath = filepath.Join(dir, "duckdb.parquet")
	return c
}

func (c *writeComparison) close() {
	c.duck.do("run", "DROP TABLE IF EXISTS w")
	os.RemoveAll(c.dir)
}

func (c *writeComparison) write(tb testing.TB, path string, opts *arrowpq.WriteOptions) (wall, cpu float64, size int64) {
	runtime.GC()
	cpu0, t0 := processCPU(), time.Now()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := arrowpq.NewWriter(f, c.rec.Schema(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Write(c.rec); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	d, dcpu := time.Since(t0), processCPU()-cpu0
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return ms(d), ms(dcpu), st.Size()
}

// round writes once with every contender; record false makes it a
// warm-up.
func (c *writeComparison) round(tb testing.TB, record bool) {
	comp := arrowpqCodecs[c.codec]
	t, tCPU, size := c.write(tb, c.ours, &arrowpq.WriteOptions{Compression: comp, Parallelism: 1})
	tRG, _, sizeRG := c.write(tb, c.oursRG, &arrowpq.WriteOptions{Compression: comp, Parallelism: 1, RowGroupRows: duckRowGroupRows})
	runtime.GC()
	r := c.duck.must(tb, "run", fmt.Sprintf("COPY w TO %s (FORMAT parquet, COMPRESSION %s)", sqlString(c.duckPath), strings.ToLower(c.codec.String())))
	st, err := os.Stat(c.duckPath)
	if err != nil {
		tb.Fatal(err)
	}
	c.res.oursSize, c.res.oursRGSize, c.res.duckSize = size, sizeRG, st.Size()
	for _, p := range []string{c.ours, c.oursRG, c.duckPath} {
		os.Remove(p)
	}
	if record {
		c.res.ours = append(c.res.ours, t)
		c.res.oursCPU = append(c.res.oursCPU, tCPU)
		c.res.oursRG = append(c.res.oursRG, tRG)
		c.res.duck = append(c.res.duck, r.Ms)
		c.res.duckCPU = append(c.res.duckCPU, r.CPUMs)
		c.res.ratio = append(c.res.ratio, t/r.Ms)
		c.res.ratioCPU = append(c.res.ratioCPU, tCPU/r.CPUMs)
	}
}

// compareWrite runs a warm-up round and then rounds rounds of the write
// comparison of dataset name with codec.
func compareWrite(tb testing.TB, name string, codec compress.Compression, rounds int) writeResult {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	c := newWriteComparison(tb, name, codec)
	defer c.close()
	for round := -1; round < rounds; round++ {
		c.round(tb, round >= 0)
	}
	return c.res
}

// BenchmarkDuckDBWrite compares arrowpq's write of each dataset with
// DuckDB's COPY, 1 thread each (see writeComparison; it sets GOMAXPROCS
// itself). A warm-up round runs first; each b.Loop iteration is one round.
// Metrics are medians in milliseconds per write: ours-ms (arrowpq's
// defaults for the codec), ours-cpu-ms (its process CPU time),
// ours-rg122880-ms (DuckDB's row group size), duckdb-copy-ms,
// duckdb-cpu-ms (Node process CPU time); ours/duckdb and
// ours-cpu/duckdb-cpu (medians of per-round ratios); file-MB,
// duckdb-file-MB and size-ratio (ours ÷ DuckDB's).
func BenchmarkDuckDBWrite(b *testing.B) {
	needDuckDB(b)
	for _, d := range Datasets {
		for _, codec := range benchCodecs {
			b.Run(fmt.Sprintf("data=%s/codec=%s", d.Name, codec), func(b *testing.B) {
				prev := runtime.GOMAXPROCS(1)
				defer runtime.GOMAXPROCS(prev)
				c := newWriteComparison(b, d.Name, codec)
				defer c.close()
				c.round(b, false)
				for b.Loop() {
					c.round(b, true)
				}
				res := c.res
				b.ReportMetric(res.ours.median(), "ours-ms")
				b.ReportMetric(res.oursRG.median(), "ours-rg122880-ms")
				b.ReportMetric(res.duck.median(), "duckdb-copy-ms")
				b.ReportMetric(res.oursCPU.median(), "ours-cpu-ms")
				b.ReportMetric(res.duckCPU.median(), "duckdb-cpu-ms")
				b.ReportMetric(res.ratio.median(), "ours/duckdb")
				b.ReportMetric(res.ratioCPU.median(), "ours-cpu/duckdb-cpu")
				b.ReportMetric(float64(res.oursSize)/1e6, "file-MB")
				b.ReportMetric(float64(res.duckSize)/1e6, "duckdb-file-MB")
				b.ReportMetric(float64(res.oursSize)/float64(res.duckSize), "size-ratio")
			})
		}
	}
}

// TestDuckDBTable runs the read and write comparisons and prints them as
// Markdown tables for docs/performance.md. It runs only with
// ARROWPQ_BENCH_DUCKDB=1 (it takes minutes); ARROWPQ_BENCH_DUCKDB_ROUNDS
// sets the rounds (default 5) and ARROWPQ_BENCH_DUCKDB_ONLY=read or write
// runs one half; ARROWPQ_BENCH_DUCKDB_VIEWS=1 has arrowpq read strings
// and binaries as views; ARROWPQ_BENCH_THP=1 marks the test binary's heap
// MADV_HUGEPAGE before each of arrowpq's reads (adviseHeapHuge: what a read
// costs where the kernel backs the Go heap with huge pages, as under the
// "always" policy).
//
//	ARROWPQ_BENCH_DUCKDB=1 go test -run TestDuckDBTable -v -timeout 2h ./benchmarks
func TestDuckDBTable(t *testing.T) {
	if os.Getenv("ARROWPQ_BENCH_DUCKDB") != "1" {
		t.Skip("set ARROWPQ_BENCH_DUCKDB=1 to run the DuckDB comparison")
	}
	needDuckDB(t)
	rounds := 5
	if s := os.Getenv("ARROWPQ_BENCH_DUCKDB_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("ARROWPQ_BENCH_DUCKDB_ROUNDS=%q", s)
		}
		rounds = n
	}
	only := os.Getenv("ARROWPQ_BENCH_DUCKDB_ONLY")
	duckViews = os.Getenv("ARROWPQ_BENCH_DUCKDB_VIEWS") == "1"
	duckTHP = os.Getenv("ARROWPQ_BENCH_THP") == "1"
	defer func() { duckViews, duckTHP = false, false }()
	var out strings.Builder
	if duckViews {
		out.WriteString("arrowpq reads strings and binaries as views (ReadOptions.Views, ARROWPQ_BENCH_DUCKDB_VIEWS=1). " +
			"The Arrow size then counts a page that two batches point into twice, so alloc ÷ Arrow reads low.\n\n")
	}
	if n := runtime.NumCPU(); n > 1 {
		// The ceiling of every all-threads figure below.
		fmt.Fprintf(&out, "Machine: %d goroutines at once do the work of %.2f alone (arithmetic in registers), %.2f (streaming 64 MiB each).\n\n",
			n, machineScaling(n, false, 3), machineScaling(n, true, 3))
	}
	if c := freshPageCost(5); c > 0 {
		fmt.Fprintf(&out, "A new page of memory costs %.2f µs to touch (the kernel's fault and zeroing, %.2f GB/s)", float64(c)/1e3, float64(os.Getpagesize())/float64(c))
		if rate := hugePageRate(5); rate > 0 {
			fmt.Fprintf(&out, "; marked MADV_HUGEPAGE, new memory is touched at %.2f GB/s", rate/1e9)
		}
		fmt.Fprintf(&out, ". Transparent huge pages: %q.\n\n", thpMode())
	}
	if duckTHP {
		out.WriteString("arrowpq's reads run with the heap marked MADV_HUGEPAGE (ARROWPQ_BENCH_THP=1).\n\n")
	}
	if only != "write" {
		var results []readResult
		for _, f := range readFiles(t) {
			for _, threads := range []string{"1", "all"} {
				r := compareRead(t, f, threads, rounds, true)
				t.Logf("%s threads=%s: ours %s ms, duckdb scan %s ms", f.name, threads, r.ours.spread(0), r.scan.spread(0))
				results = append(results, r)
			}
		}
		out.WriteString(readTable(results, rounds))
	}
	if only != "read" {
		var results []writeResult
		for _, d := range Datasets {
			for _, codec := range benchCodecs {
				r := compareWrite(t, d.Name, codec, rounds)
				t.Logf("%s: ours %s ms, duckdb %s ms", r.name, r.ours.spread(0), r.duck.spread(0))
				results = append(results, r)
			}
		}
		out.WriteString(writeTable(results, rounds))
	}
	t.Log("\n" + out.String())
	if p := os.Getenv("ARROWPQ_BENCH_DUCKDB_OUT"); p != "" {
		if err := os.WriteFile(p, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTable renders read results: milliseconds per read as median (min–max).
func readTable(results []readResult, rounds int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Reads, ms per read, median (min–max) of %d rounds; %d CPUs. Ratios are medians of per-round ratios; with all threads DuckDB's scan operator time is summed over its threads, so only ÷ query applies.\n\n", rounds, runtime.NumCPU())
	b.WriteString("| file | threads | arrowpq | arrowpq CPU | arrowpq pool | DuckDB query | DuckDB CPU | DuckDB scan op | scan CPU (est.) | arrowpq ÷ scan | CPU ÷ scan CPU | arrowpq ÷ query | alloc ÷ Arrow (pool) |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		arrow := float64(r.file.bytes)
		ratios := fmt.Sprintf("%.2f | %.2f", r.oursScan.median(), r.oursScanCPU.median())
		if r.threads != "1" {
			ratios = "– | –"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.0f | %s | %.0f | %s | %.0f | %s | %.2f | %.2f (%.2f) |\n",
			strings.NewReplacer("data=", "", "/codec=", " ").Replace(r.file.name), r.threads,
			r.ours.spread(0), r.oursCPU.median(), r.pool.median(), r.query.spread(0), r.queryCPU.median(),
			r.scan.spread(0), r.scanCPU.median(), ratios, r.ours.median()/r.query.median(),
			r.alloc.median()/arrow, r.poolAlloc.median()/arrow)
	}
	b.WriteString("\narrowpq's speed-up on all threads (1-thread median ÷ all-threads median): ")
	one := map[string]float64{}
	var ups []string
	for _, r := range results {
		name := strings.NewReplacer("data=", "", "/codec=", " ").Replace(r.file.name)
		if r.threads == "1" {
			one[name] = r.ours.median()
		} else if t, ok := one[name]; ok {
			ups = append(ups, fmt.Sprintf("%s %.2f", name, t/r.ours.median()))
		}
	}
	b.WriteString(strings.Join(ups, ", ") + ".\n\n")
	return b.String()
}

// writeTable renders write results.
func writeTable(results []writeResult, rounds int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Writes, 1 thread, ms per write, median (min–max) of %d rounds; ratios are medians of per-round ratios; sizes in MB.\n\n", rounds)
	b.WriteString("| dataset | arrowpq | arrowpq CPU | arrowpq, row groups of 122,880 | DuckDB COPY | DuckDB CPU | arrowpq ÷ DuckDB | CPU ÷ CPU | arrowpq MB | (122,880) MB | DuckDB MB | size ratio |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %s | %.0f | %s | %s | %.0f | %.2f | %.2f | %.1f | %.1f | %.1f | %.3f |\n",
			strings.NewReplacer("data=", "", "/codec=", " ").Replace(r.name),
			r.ours.spread(0), r.oursCPU.median(), r.oursRG.spread(0), r.duck.spread(0), r.duckCPU.median(), r.ratio.median(), r.ratioCPU.median(),
			float64(r.oursSize)/1e6, float64(r.oursRGSize)/1e6, float64(r.duckSize)/1e6, float64(r.oursSize)/float64(r.duckSize))
	}
	b.WriteString("\n")
	return b.String()
}
