#!/usr/bin/env node
// dumpmany.mjs: dump many Parquet files with one engine in one Node process,
// so that a test pays the engines' start-up once instead of once per file.
//
//   node dumpmany.mjs ORACLE_DIR ENGINE OUT_DIR FILE...
//
// For each FILE it writes OUT_DIR/<n>.jsonl (rows, as ORACLE_DIR/dump.mjs
// prints them) or OUT_DIR/<n>.err (the engine's error message), where n is
// the position of FILE in the argument list.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [oracleDir, engine, outDir, ...files] = process.argv.slice(2);
const { dumpRows } = await import(pathToFileURL(resolve(oracleDir, 'dump.mjs')).href);
for (let i = 0; i < files.length; i++) {
  try {
    await dumpRows(engine, files[i], join(outDir, `${i}.jsonl`));
  } catch (e) {
    writeFileSync(join(outDir, `${i}.err`), String(e && e.message ? e.message : e));
  }
}
