package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
)

// DuckDBSQL runs statements in one DuckDB connection (one thread) and
// returns the rows of the last statement, each a map from column name to
// DuckDB's JSON form of the value (getRowObjectsJson: numbers as JSON
// numbers up to 32 bits, BIGINT and wider, decimals, dates and timestamps
// as strings). Tests use it to have DuckDB read and write CSV and JSON.
func DuckDBSQL(statements ...string) ([]map[string]any, error) {
	if err := Install(); err != nil {
		return nil, err
	}
	_, here, _, _ := runtime.Caller(0)
	args := append([]string{filepath.Join(filepath.Dir(here), "duckdbsql.mjs"), Home()}, statements...)
	cmd := exec.Command("node", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("duckdb: %v: %s", err, stderr.String())
	}
	var rows []map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	for dec.More() {
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			return nil, fmt.Errorf("duckdb output: %w", err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}
