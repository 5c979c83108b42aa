package arrowpq_test

// Encrypted files through arrowpq: every encrypted file of parquet-testing
// read with the keys its README gives (as CATALOG.md spells them), compared
// with arrow-go's own decryption (pqarrow with FileDecryptionProperties)
// where arrow-go can decrypt (the parquet-cpp files), and the parquet-mr
// files (which arrow-go misreads, CATALOG.md) with the parquet-cpp file of
// the same data; the expected errors without keys.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/internal/forge"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
)

const encCorpus = sharedTestdata + "/parquet-testing/data"

var (
	cppKeys = map[string]string{"kf": "0123456789012345", "kc1": "1234567890123450", "kc2": "1234567890123451"}
	aesKeys = func() map[string]string {
		m := map[string]string{"kf": "01234567890123456789012345678901"}
		for i := 1; i <= 8; i++ {
			m["kc"+strconv.Itoa(i)] = "1234567890123456789012345678901" + strconv.Itoa(i+1)
		}
		return m
	}()
)

func keyRetriever(keys map[string]string) encryption.KeyRetriever {
	return func(md []byte) ([]byte, error) {
		if k, ok := keys[string(md)]; ok {
			return []byte(k), nil
		}
		return nil, encryption.ErrNoKey
	}
}

type encFile struct {
	name        string
	aad         string // prefix the reader must supply
	plainFooter bool
	encrypted   []string // top-level fields with an encrypted leaf
}

var cppEncrypted = []string{"double_field", "float_field"}
var allFields = []string{"boolean_field", "int32_field", "int64_field", "int96_field", "float_field", "double_field", "ba_field", "flba_field"}

var encFiles = []encFile{
	{name: "uniform_encryption.parquet.encrypted", encrypted: allFields},
	{name: "encrypt_columns_and_footer.parquet.encrypted", encrypted: cppEncrypted},
	{name: "encrypt_columns_and_footer_aad.parquet.encrypted", encrypted: cppEncrypted},
	{name: "encrypt_columns_and_footer_ctr.parquet.encrypted", encrypted: cppEncrypted},
	{name: "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted", aad: "tester", encrypted: cppEncrypted},
	{name: "encrypt_columns_plaintext_footer.parquet.encrypted", plainFooter: true, encrypted: cppEncrypted},
	{name: "encrypt_columns_and_footer_bloom_filter.parquet.encrypted", encrypted: cppEncrypted},
	{name: "aes256/uniform_encryption.parquet.encrypted", encrypted: allFields},
	{name: "aes256/encrypt_columns_and_footer.parquet.encrypted", encrypted: allFields},
	{name: "aes256/encrypt_columns_and_footer_ctr.parquet.encrypted", encrypted: allFields},
	{name: "aes256/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted", aad: "tester", encrypted: allFields},
	{name: "aes256/encrypt_columns_plaintext_footer.parquet.encrypted", plainFooter: true, encrypted: allFields},
}

func (c encFile) options() *arrowpq.ReadOptions {
	keys := cppKeys
	if strings.HasPrefix(c.name, "aes256/") {
		keys = aesKeys
	}
	d := &encryption.DecryptionOptions{KeyRetriever: keyRetriever(keys)}
	if c.aad != "" {
		d.AADPrefix = []byte(c.aad)
	}
	return &arrowpq.ReadOptions{Decryption: d}
}

// readEncrypted reads the file with opts, cols projected, rendered canonically.
func readEncrypted(path string, opts *arrowpq.ReadOptions, cols []string) ([]byte, int64, error) {
	o := *opts
	o.Columns = cols
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, 0, err
	}
	tbl, err := arrowpq.ReadTable(context.Background(), fh, st.Size(), &o)
	if err != nil {
		return nil, 0, err
	}
	defer tbl.Release()
	out, err := oracle.RenderTable(tbl)
	return out, tbl.NumRows(), err
}

// readArrowGo reads the fields cols of an encrypted file with arrow-go's
// decryption, rendered canonically.
func readArrowGo(path string, c encFile, cols []string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	keys := cppKeys
	dopts := []parquet.FileDecryptionOption{parquet.WithKeyRetriever(stringKeys(keys))}
	if c.aad != "" {
		dopts = append(dopts, parquet.WithDecryptAadPrefix(c.aad))
	}
	rp := parquet.NewReaderProperties(memory.DefaultAllocator)
	rp.FileDecryptProps = parquet.NewFileDecryptionProperties(dopts...)
	pf, err := file.NewParquetReader(bytes.NewReader(data), file.WithReadProps(rp))
	if err != nil {
		return nil, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	var leaves []int
	sc := pf.MetaData().Schema
	for i := range sc.NumColumns() {
		if slices.Contains(cols, strings.Split(sc.Column(i).Path(), ".")[0]) {
			leaves = append(leaves, i)
		}
	}
	rgs := make([]int, pf.NumRowGroups())
	for i := range rgs {
		rgs[i] = i
	}
	tbl, err := fr.ReadRowGroups(context.Background(), leaves, rgs)
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	return oracle.RenderTable(tbl)
}

type stringKeys map[string]string

func (s stringKeys) GetKey(md []byte) string { return s[string(md)] }

func without(fields []string, drop ...string) []string {
	var out []string
	for _, f := range fields {
		if !slices.Contains(drop, f) {
			out = append(out, f)
		}
	}
	return out
}

// TestReadEncryptedCorpus: every encrypted corpus file reads through
// arrowpq.OpenFile with its keys. int96_field holds dates outside the
// nanosecond range (CATALOG.md): it reads in microseconds and is compared
// between the parquet-cpp and parquet-mr files only, as arrow-go cannot
// read it.
func TestReadEncryptedCorpus(t *testing.T) {
	testshared.Need(t, encCorpus)
	cppRender := map[string][]byte{}
	cols := without(allFields, "int96_field")
	for _, c := range encFiles {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(encCorpus, c.name)
			opts := c.options()
			opts.Int96Unit = arrow.Microsecond
			if strings.Contains(c.name, "bloom_filter") {
				// parquet-mr, 2000 rows: arrow-go decrypts the plaintext
				// columns only; every column must read.
				ours, n, err := readEncrypted(path, opts, nil)
				if err != nil || n != 2000 {
					t.Fatalf("%d rows, %v", n, err)
				}
				// The writer's generator (parquet-java's bloom filter
				// encryption test) as the plaintext columns show it: row
				// i holds i, i+0.25, i+0.5 and "name_i".
				var want strings.Builder
				for i := range 2000 {
					fmt.Fprintf(&want, `{"double_field":%v,"float_field":%v,"int32_field":"%d","name":"name_%d"}`+"\n", float64(i)+0.5, float64(i)+0.25, i, i)
				}
				if err := oracle.Compare(ours, []byte(want.String()), oracle.Allowances{}); err != nil {
					t.Fatal(err)
				}
				mine, _, err := readEncrypted(path, opts, []string{"int32_field", "name"})
				if err != nil {
					t.Fatal(err)
				}
				theirs, err := readArrowGo(path, c, []string{"int32_field", "name"})
				if err != nil {
					t.Fatal(err)
				}
				if err := oracle.Compare(mine, theirs, oracle.Allowances{}); err != nil {
					t.Fatal(err)
				}
				return
			}
			if _, n, err := readEncrypted(path, opts, nil); err != nil || n != 50 {
				t.Fatalf("every column: %d rows, %v", n, err)
			}
			if !strings.HasPrefix(c.name, "aes256/") {
				ours, _, err := readEncrypted(path, opts, cols)
				if err != nil {
					t.Fatal(err)
				}
				theirs, err := readArrowGo(path, c, cols)
				if err != nil {
					t.Fatal(err)
				}
				if err := oracle.Compare(ours, theirs, oracle.Allowances{}); err != nil {
					t.Fatalf("differs from arrow-go's decryption: %v", err)
				}
				return
			}
			// parquet-mr: the parquet-cpp file of the same generator, but
			// for int64_field (a 3-level LIST here).
			cpp := filepath.Join(encCorpus, "uniform_encryption.parquet.encrypted")
			same := without(allFields, "int64_field")
			want, ok := cppRender["x"]
			if !ok {
				var err error
				o := encFile{name: "uniform_encryption.parquet.encrypted"}.options()
				o.Int96Unit = arrow.Microsecond
				if want, _, err = readEncrypted(cpp, o, same); err != nil {
					t.Fatal(err)
				}
				cppRender["x"] = want
			}
			ours, _, err := readEncrypted(path, opts, same)
			if err != nil {
				t.Fatal(err)
			}
			if err := oracle.Compare(ours, want, oracle.Allowances{}); err != nil {
				t.Fatalf("differs from the parquet-cpp file: %v", err)
			}
		})
	}
}

// TestReadEncryptedWithoutKeys: encrypted footers fail at open with
// ErrNoKey (ErrNoAADPrefix when the prefix is not stored), both wrapping
// metadata.ErrEncrypted; under a plaintext footer the unencrypted columns
// read (and equal arrow-go's reading of them) while a projection with an
// encrypted column fails naming it.
func TestReadEncryptedWithoutKeys(t *testing.T) {
	testshared.Need(t, encCorpus)
	for _, c := range encFiles {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(encCorpus, c.name)
			r, err := arrowpq.OpenFile(path, nil)
			if !c.plainFooter {
				want := encryption.ErrNoKey
				if c.aad != "" {
					want = encryption.ErrNoAADPrefix
				}
				if !errors.Is(err, want) || !errors.Is(err, metadata.ErrEncrypted) {
					t.Fatalf("open: %v, want %v", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			_, _, err = readEncrypted(path, &arrowpq.ReadOptions{}, nil)
			if !errors.Is(err, metadata.ErrEncrypted) || !slices.ContainsFunc(c.encrypted, func(f string) bool { return strings.Contains(err.Error(), "column "+f) }) {
				t.Fatalf("read every column: %v, want ErrEncrypted naming one of %v", err, c.encrypted)
			}
			t.Logf("every column: %v", err)
			plain := without(allFields, append(c.encrypted, "int96_field")...)
			if len(plain) == 0 {
				return
			}
			ours, n, err := readEncrypted(path, &arrowpq.ReadOptions{}, plain)
			if err != nil || n != 50 {
				t.Fatalf("plaintext columns %v: %d rows, %v", plain, n, err)
			}
			theirs, err := readArrowGo(path, encFile{}, plain)
			if err != nil {
				t.Fatal(err)
			}
			if err := oracle.Compare(ours, theirs, oracle.Allowances{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReadEncryptedWrongKey: wrong keys give errors naming the module and
// the column, wrapping encryption.ErrAuthentication.
func TestReadEncryptedWrongKey(t *testing.T) {
	testshared.Need(t, encCorpus)
	bad := []byte("9999999999999999")
	cases := []struct {
		file string
		dec  encryption.DecryptionOptions
		want string
	}{
		{"uniform_encryption.parquet.encrypted", encryption.DecryptionOptions{FooterKey: bad}, "footer"},
		{"encrypt_columns_and_footer.parquet.encrypted",
			encryption.DecryptionOptions{FooterKey: []byte(cppKeys["kf"]), ColumnKeys: map[string][]byte{"double_field": bad}, KeyRetriever: keyRetriever(cppKeys)},
			"column double_field, column metadata"},
		{"encrypt_columns_plaintext_footer.parquet.encrypted",
			encryption.DecryptionOptions{FooterKey: bad},
			"footer signature"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, _, err := readEncrypted(filepath.Join(encCorpus, c.file), &arrowpq.ReadOptions{Decryption: &c.dec}, nil)
			if !errors.Is(err, encryption.ErrAuthentication) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want ErrAuthentication naming %q", err, c.want)
			}
			t.Log(err)
		})
	}
}

// TestReadExternalKeyMaterial reads the parquet-java key-tools file through
// the in-memory test KMS and its external key material: 100 rows of i and
// a letter + i (letters a..j cycling), as parquet-java's test writes them.
func TestReadExternalKeyMaterial(t *testing.T) {
	testshared.Need(t, encCorpus)
	name := "external_key_material_java.parquet.encrypted"
	j, err := os.ReadFile(filepath.Join(encCorpus, encryption.ExternalKeyMaterialName(name)))
	if err != nil {
		t.Fatal(err)
	}
	ext, err := encryption.ParseExternalKeyMaterial(j)
	if err != nil {
		t.Fatal(err)
	}
	master := map[string][]byte{}
	for id, k := range cppKeys {
		master[id] = []byte(k)
	}
	kms := &encryption.InMemoryKMS{MasterKeys: master}
	opts := &arrowpq.ReadOptions{Decryption: &encryption.DecryptionOptions{KeyRetriever: encryption.NewKMSKeyRetriever(kms, ext)}}
	got, n, err := readEncrypted(filepath.Join(encCorpus, name), opts, nil)
	if err != nil || n != 100 {
		t.Fatalf("%d rows, %v", n, err)
	}
	var want strings.Builder
	r, err := arrowpq.OpenFile(filepath.Join(encCorpus, name), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	names := r.Schema().Fields()
	if len(names) != 2 {
		t.Fatalf("schema %v", r.Schema())
	}
	q := `"` // the canonical rendering quotes integers
	for i := range 100 {
		want.WriteString(`{"` + names[0].Name + `":` + q + strconv.Itoa(i) + q + `,"` + names[1].Name + `":"` + string(rune('a'+i%10)) + strconv.Itoa(i) + `"}` + "\n")
	}
	if err := oracle.Compare(got, []byte(want.String()), oracle.Allowances{}); err != nil {
		t.Fatalf("%v\n%s", err, got[:min(len(got), 300)])
	}
	// Without the key material: a clean error.
	_, _, err = readEncrypted(filepath.Join(encCorpus, name), &arrowpq.ReadOptions{Decryption: &encryption.DecryptionOptions{KeyRetriever: encryption.NewKMSKeyRetriever(kms, nil)}}, nil)
	if !errors.Is(err, metadata.ErrEncrypted) {
		t.Fatalf("without key material: %v", err)
	}
}

// TestEncryptedCampaignArrowpq runs internal/forge's byte mutations
// (flips, cuts, splices; field forging where the footer is plaintext) on
// the encrypted corpus files and reads each mutant through arrowpq with
// the right keys: no panic (a recovered one fails the test), no read
// slower than a second. The outcome counts are logged.
func TestEncryptedCampaignArrowpq(t *testing.T) {
	testshared.Need(t, encCorpus)
	n := 3000
	if testing.Short() {
		n = 300
	}
	type input struct {
		name string
		data []byte
		f    *forge.File
		opts *arrowpq.ReadOptions
	}
	var inputs []input
	for _, c := range encFiles {
		data, err := os.ReadFile(filepath.Join(encCorpus, c.name))
		if err != nil {
			t.Fatal(err)
		}
		opts := c.options()
		opts.Int96Unit = arrow.Microsecond
		opts.Decryption.MaxFooterSize = 1 << 20
		f, _ := forge.Parse(c.name, data)
		inputs = append(inputs, input{c.name, data, f, opts})
	}
	outcomes := map[string]int{}
	for i := range n {
		rng := rand.New(rand.NewPCG(1919, uint64(i)))
		in := inputs[rng.IntN(len(inputs))]
		plan := make([]byte, 48)
		for j := range plan {
			plan[j] = byte(rng.Uint32())
		}
		var m forge.Mutant
		forged := false
		if in.f != nil && rng.IntN(2) == 0 {
			m, forged = in.f.Mutate(forge.NewPlan(plan))
		}
		if !forged {
			m = forge.MutateBytes(in.data, forge.NewPlan(plan))
		}
		start := time.Now()
		outcome := readEncryptedMutant(m.Data, in.opts)
		if d := time.Since(start); d > time.Second {
			t.Errorf("mutant %d of %s (%v) took %v", i, in.name, m.What, d)
		}
		if strings.HasPrefix(outcome, "PANIC") {
			t.Errorf("mutant %d of %s (%v): %s", i, in.name, m.What, outcome)
		}
		outcomes[outcome]++
	}
	var lines []string
	for k, v := range outcomes {
		lines = append(lines, fmt.Sprintf("%6d %s", v, k))
	}
	sort.Strings(lines)
	t.Logf("%d mutants:\n%s", n, strings.Join(lines, "\n"))
}

func readEncryptedMutant(data []byte, opts *arrowpq.ReadOptions) (outcome string) {
	defer func() {
		if r := recover(); r != nil {
			outcome = fmt.Sprintf("PANIC: %v", r)
		}
	}()
	tbl, err := arrowpq.ReadTable(context.Background(), bytes.NewReader(data), int64(len(data)), opts)
	if err == nil {
		tbl.Release()
		return "read"
	}
	var ae *arrowpq.Error
	if !errors.As(err, &ae) {
		return "error without location: " + err.Error()
	}
	switch {
	case errors.Is(err, encryption.ErrAuthentication):
		return "error: authentication"
	case errors.Is(err, metadata.ErrEncrypted):
		return "error: no key"
	case errors.Is(err, encryption.ErrCorrupt):
		return "error: malformed frame"
	default:
		return "error: other"
	}
}

// TestEncryptedIndexesAndBlooms: the column and offset indexes of every
// encrypted chunk of the corpus decrypt (through the reader's
// FileDecryptor) and pass metadata's checks, the offset index's first page
// is the chunk's first data page; the bloom filters of the parquet-mr file
// contain every value of their columns (i+0.5, i+0.25 for i < 2000) and
// reject values absent from the column.
func TestEncryptedIndexesAndBlooms(t *testing.T) {
	testshared.Need(t, encCorpus)
	for _, c := range encFiles {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(encCorpus, c.name)
			r, err := arrowpq.OpenFile(path, c.options())
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			fh, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			f := r.Metadata()
			indexes, blooms := 0, 0
			for col, sc := range f.Schema.Columns {
				d, err := r.Decryptor().Chunk(0, col)
				if err != nil {
					t.Fatal(err)
				}
				var dec metadata.IndexDecryptor
				if d != nil {
					dec = d
				}
				ci, err := metadata.ReadEncryptedColumnIndex(fh, f, 0, col, dec)
				if err != nil {
					t.Fatalf("%s: column index: %v", sc.DottedPath, err)
				}
				oi, err := metadata.ReadEncryptedOffsetIndex(fh, f, 0, col, dec)
				if err != nil {
					t.Fatalf("%s: offset index: %v", sc.DottedPath, err)
				}
				if ci != nil && oi != nil && d != nil {
					indexes++
					md, _ := f.ColumnChunk(0, col)
					if oi.PageLocations[0].Offset != md.DataPageOffset {
						t.Errorf("%s: first page at %d, data_page_offset %d", sc.DottedPath, oi.PageLocations[0].Offset, md.DataPageOffset)
					}
				}
				bf, err := metadata.ReadEncryptedBloomFilter(fh, f, 0, col, dec)
				if errors.Is(err, metadata.ErrNoBloomFilter) {
					continue
				}
				if err != nil {
					t.Fatalf("%s: bloom filter: %v", sc.DottedPath, err)
				}
				blooms++
				hash := func(i int, missing bool) uint64 {
					v := float64(i) + 0.5
					if missing {
						v += 0.125
					}
					if sc.DottedPath == "float_field" {
						return metadata.XXHash64Uint32(math.Float32bits(float32(v - 0.25)))
					}
					return metadata.XXHash64Uint64(math.Float64bits(v))
				}
				falsePos := 0
				for i := range 2000 {
					if !bf.MayContain(hash(i, false)) {
						t.Fatalf("%s: bloom filter misses value %d", sc.DottedPath, i)
					}
					if bf.MayContain(hash(i, true)) {
						falsePos++
					}
				}
				if falsePos > 100 {
					t.Errorf("%s: %d of 2000 absent values pass the bloom filter", sc.DottedPath, falsePos)
				}
			}
			if indexes == 0 {
				t.Error("no encrypted page index read")
			}
			if want := map[bool]int{true: 2, false: 0}[strings.Contains(c.name, "bloom")]; blooms != want {
				t.Errorf("%d bloom filters, want %d", blooms, want)
			}
		})
	}
}
