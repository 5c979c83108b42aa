#!/usr/bin/env node
// duckdbsql.mjs: run SQL statements in DuckDB (the oracle's pinned
// @duckdb/node-api, one thread) and print the rows of the last one as
// JSON lines (DuckDB's own JSON form of each value: getRowObjectsJson).
//
//   node duckdbsql.mjs ORACLE_HOME STATEMENT...
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [home, ...stmts] = process.argv.slice(2);
const { load } = await import(pathToFileURL(join(home, 'deps.mjs')).href);
const { DuckDBInstance } = await load.duckdb();
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await inst.connect();
let r;
for (const s of stmts) r = await con.runAndReadAll(s);
const out = [];
for (const row of r.getRowObjectsJson()) out.push(JSON.stringify(row));
process.stdout.write(out.length ? out.join('\n') + '\n' : '');
