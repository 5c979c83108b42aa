package oracle

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// WhereQuery is one filtered scan for [DuckDBWhere]: the rows of File for
// which the DuckDB SQL condition Where is true.
type WhereQuery struct {
	File  string `json:"file"`
	Where string `json:"where"`
}

// WhereResult is DuckDB's answer to one WhereQuery: the file row numbers
// (0-based) of the rows returned, in the order DuckDB returned them with
// one thread, or DuckDB's error.
type WhereResult struct {
	Rows []int64 `json:"rows"`
	// Table is the answer over a table loaded from the file: DuckDB then
	// evaluates the condition on every row, without its Parquet pruning.
	Table []int64 `json:"table"`
	Error string  `json:"error"`
}

// DuckDBWhere runs queries in one Node process with DuckDB
// (testdata/duckdb_where.mjs), for differential tests of filtered reads.
func DuckDBWhere(queries []WhereQuery) ([]WhereResult, error) {
	if err := Install(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pq-where-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "queries.json"), filepath.Join(dir, "out.jsonl")
	b, err := json.Marshal(queries)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(in, b, 0o644); err != nil {
		return nil, err
	}
	_, here, _, _ := runtime.Caller(0)
	cmd := exec.Command("node", filepath.Join(filepath.Dir(here), "testdata", "duckdb_where.mjs"), Dir(), in, out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("node duckdb_where.mjs: %v: %s", err, msg)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	if len(lines) != len(queries) {
		return nil, fmt.Errorf("duckdb_where.mjs: %d results for %d queries", len(lines), len(queries))
	}
	res := make([]WhereResult, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &res[i]); err != nil {
			return nil, fmt.Errorf("duckdb_where.mjs line %d: %v", i+1, err)
		}
	}
	return res, nil
}
