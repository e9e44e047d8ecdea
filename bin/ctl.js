#!/usr/bin/env node
// Thin launcher: everything lives in the bundle that `npm install` builds (scripts/build.mjs, run by `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(`error: ctl is not built (${fileURLToPath(entry)} is missing)\n` +
    "  run 'npm install' in the ctl package, which builds it\n");
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv.slice(2));
