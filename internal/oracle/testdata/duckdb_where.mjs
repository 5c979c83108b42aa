#!/usr/bin/env node
// duckdb_where.mjs: run filtered scans in DuckDB (one thread, so rows come
// in file order) and print the file row numbers each one returns.
//
//   node duckdb_where.mjs ORACLE_DIR QUERIES.json OUT.jsonl
//
// QUERIES.json is an array of {"file": PATH, "where": SQL}. For each query,
// OUT.jsonl gets one line: {"rows": [n, ...]} with the file_row_number of
// every row of `SELECT … FROM read_parquet(file) WHERE <where>` in the order
// DuckDB returns them, or {"error": MESSAGE}; and "table": the same over a
// table loaded from the file first, where DuckDB evaluates the condition
// on every row without its Parquet pruning (which trusts statistics that
// some corpus files get wrong).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [oracleDir, queriesPath, outPath] = process.argv.slice(2);
const { deps } = await import(pathToFileURL(resolve(oracleDir, 'dump.mjs')).href);
const { DuckDBInstance } = await (await deps()).duckdb();
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await inst.connect();
await con.run("SET TimeZone = 'UTC'");
const sqlStr = (s) => "'" + String(s).replace(/'/g, "''") + "'";
const queries = JSON.parse(readFileSync(queriesPath, 'utf8'));
const out = [];
const tables = new Map();
const nums = (r) => r.getRows().map((row) => Number(row[0]));
for (const q of queries) {
  const res = {};
  try {
    res.rows = nums(await con.runAndReadAll(
      `SELECT file_row_number FROM read_parquet(${sqlStr(q.file)}, file_row_number = true) WHERE ${q.where}`));
    if (!tables.has(q.file)) {
      const name = `t${tables.size}`;
      await con.run(`CREATE TABLE ${name} AS SELECT * FROM read_parquet(${sqlStr(q.file)}, file_row_number = true) ORDER BY file_row_number`);
      tables.set(q.file, name);
    }
    res.table = nums(await con.runAndReadAll(
      `SELECT file_row_number FROM ${tables.get(q.file)} WHERE ${q.where} ORDER BY file_row_number`));
  } catch (e) {
    res.error = String(e && e.message ? e.message : e);
  }
  out.push(JSON.stringify(res));
}
writeFileSync(outPath, out.join('\n') + '\n');
