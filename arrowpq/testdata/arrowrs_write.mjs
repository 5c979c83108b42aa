#!/usr/bin/env node
// arrowrs_write.mjs: write an Arrow IPC stream as Parquet with arrow-rs
// (parquet-wasm, installed by ../shared/oracle/setup.sh), so that tests have
// files that no code of ours wrote.
//
//   node arrowrs_write.mjs ORACLE_HOME IN.arrows OUT.parquet
//
// ORACLE_HOME is $PQ_ORACLE_HOME (default ~/.cache/pq-oracle). The writer
// uses arrow-rs's default properties: it stores Date64, Time32(s),
// Timestamp(s) and Duration as bare INT64/INT32 and the real type only in
// ARROW:schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [home, input, output] = process.argv.slice(2);
const pw = await import(pathToFileURL(join(home, 'node_modules', 'parquet-wasm', 'node', 'parquet_wasm.js')).href);
const table = pw.Table.fromIPCStream(new Uint8Array(readFileSync(input)));
const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.UNCOMPRESSED).build();
writeFileSync(output, pw.writeParquet(table, props));
