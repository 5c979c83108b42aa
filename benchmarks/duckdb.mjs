#!/usr/bin/env node
// duckdb.mjs: a long-lived DuckDB (the oracle's pinned @duckdb/node-api)
// that runs the statements duckdb_test.go sends it, so that Node and
// DuckDB start once per run, outside every timing.
//
//   node duckdb.mjs ORACLE_HOME THREADS PROFILE_PATH
//
// Protocol: one JSON object a line on stdin, {"op", "sql"}, answered by one
// JSON object a line on stdout, in order:
//
//   op "run":     runs sql and returns {"ms", "cpuMs", "rows"}: ms is the
//                 wall time of runAndReadAll (process.hrtime around it),
//                 cpuMs the process CPU time over the same span
//                 (process.cpuUsage: user + system of every thread, DuckDB's
//                 included), rows the result as getRowObjectsJson.
//   op "profile": the same with DuckDB's profiler on (PRAGMA
//                 enable_profiling='json', standard mode, written to
//                 PROFILE_PATH and removed once read), and "profile": the
//                 text of that file.
//
// Any error is {"error": message}. The process ends when stdin closes.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [home, threads, profilePath] = process.argv.slice(2);
const { load } = await import(pathToFileURL(join(home, 'deps.mjs')).href);
const { DuckDBInstance } = await load.duckdb();
const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const con = await inst.connect();

async function timed(sql) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const r = await con.runAndReadAll(sql);
  const t1 = process.hrtime.bigint();
  const c = process.cpuUsage(c0);
  return {
    ms: Number(t1 - t0) / 1e6,
    cpuMs: (c.user + c.system) / 1e3,
    rows: r.getRowObjectsJson(),
  };
}

async function handle(req) {
  switch (req.op) {
    case 'run':
      return timed(req.sql);
    case 'profile': {
      rmSync(profilePath, { force: true });
      await con.run(`PRAGMA enable_profiling='json'`);
      await con.run(`SET profiling_output='${profilePath.replaceAll("'", "''")}'`);
      let out;
      try {
        out = await timed(req.sql);
      } finally {
        await con.run(`PRAGMA disable_profiling`);
      }
      out.profile = readFileSync(profilePath, 'utf8');
      rmSync(profilePath, { force: true });
      return out;
    }
    default:
      throw new Error(`unknown op ${JSON.stringify(req.op)}`);
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let out;
  try {
    out = await handle(JSON.parse(line));
  } catch (e) {
    out = { error: String(e && e.message ? e.message : e) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
