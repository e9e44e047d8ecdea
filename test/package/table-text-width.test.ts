import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
// @ts-expect-error: a plain ES module of the repository's scripts, without type declarations
import { tableTextWidth } from '../../scripts/table-text-width.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const chars = { middle: '  ', top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '' };
const options = {
  head: ['\u001b[1mID\u001b[22m', '\u001b[1mNAME\u001b[22m'],
  chars: { ...chars, 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '' },
  style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
};
const rows = [
  ['a1', '名前テスト'],
  ['bb2', '👩‍👩‍👧 family'],
  ['c3', 'plain and long enough'],
  ['d4', 'Zürich café…'],
];

type TableClass = new (opts: unknown) => { push(...rows: string[][]): void; toString(): string };
const render = (Table: TableClass, colWidths?: number[]) => {
  const table = new Table({ ...options, ...(colWidths ? { colWidths } : {}) });
  table.push(...rows);
  return table.toString();
};

describe('the build gives cli-table3 string-width with a fast path for Latin text', () => {
  it('wires the fast path in, and cli-table3 lays out wide, emoji and bold text as it does unbundled', async () => {
    const out = await build({
      absWorkingDir: root,
      stdin: { contents: "module.exports = require('cli-table3');", resolveDir: root },
      bundle: true,
      format: 'cjs',
      platform: 'node',
      write: false,
      metafile: true,
      plugins: [tableTextWidth],
    });
    const utils = out.metafile.inputs['node_modules/cli-table3/src/utils.js'];
    const widthImport = utils?.imports.find((i) => i.original === 'string-width');
    assert.equal(widthImport?.path, 'table-text-width:string-width');
    assert.ok(Object.keys(out.metafile.inputs).includes('src/cli/output/text-width.ts'));

    const module = { exports: {} as TableClass };
    new Function('module', 'require', out.outputFiles[0]!.text)(module, createRequire(import.meta.url));
    const Unbundled = createRequire(import.meta.url)('cli-table3') as TableClass;
    assert.equal(render(module.exports), render(Unbundled));
    // Cut to fixed widths: cli-table3 truncates by the same widths.
    assert.equal(render(module.exports, [3, 8]), render(Unbundled, [3, 8]));
  });

  it('is in both builds of the CLI (npm run build)', () => {
    const fastPathModule = '"table-text-width:string-width"';
    assert.ok(readFileSync(`${root}dist/cli.cjs`, 'utf8').includes(fastPathModule), 'dist/cli.cjs');
    const chunk = readdirSync(`${root}dist/chunks`).find((name) => name.startsWith('cli-table3-'));
    assert.ok(chunk && readFileSync(`${root}dist/chunks/${chunk}`, 'utf8').includes(fastPathModule), 'dist/main.js');
  });
});
