import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { withLatinFastPath } from './text-width.js';

// The string-width cli-table3 loads, from cli-table3's own directory, as the build resolves it.
const fromTable = createRequire(createRequire(import.meta.url).resolve('cli-table3'));
const stringWidth = fromTable('string-width') as (text: string) => number;

const TEXTS = [
  '',
  'laptop-7',
  'Default Admin  #sales, #emea ~{}|',
  '名前テスト',
  'ｆｕｌｌ width',
  '👩‍👩‍👧 family',
  '✔︎ done',
  '1️⃣ key cap',
  'e\u0301 combining',
  '\u001b[1mID\u001b[22m',
  '\u001b[31mred\u001b[39m and plain',
  'tab\there',
  'line\nbreak',
  '\u007f delete \u0085',
  'café',
  'Ünïcödé Łatin… ǅ',
  '©\ufe0f ®\ufe0f',
  '#\ufe0f\u20e3',
  '\u00ad soft hyphen',
  '\u0300 lone combining',
];

describe('withLatinFastPath', () => {
  it('measures every text as string-width does: ASCII, wide, emoji, combining, escape sequences, controls', () => {
    const fast = withLatinFastPath(stringWidth);
    for (const text of TEXTS) assert.equal(fast(text), stringWidth(text), JSON.stringify(text));
  });

  it('counts one column for each character it answers alone, as string-width does', () => {
    const fast = withLatinFastPath(() => Number.NaN);
    const ranges = [
      [0x20, 0x7e],
      [0xa0, 0x2ff],
      [0x2026, 0x2026],
    ];
    for (const [from, to] of ranges) {
      for (let code = from; code <= to; code++) {
        const text = String.fromCodePoint(code);
        assert.equal(fast(text), stringWidth(text), `U+${code.toString(16)}`);
      }
    }
  });

  it('answers Latin text without calling the measure, and anything else with it', () => {
    const asked: string[] = [];
    const fast = withLatinFastPath((text) => {
      asked.push(text);
      return stringWidth(text);
    });
    assert.equal(fast('Default Admin'), 13);
    assert.equal(fast('Zürich café…'), 12);
    assert.equal(fast(''), 0);
    assert.deepEqual(asked, []);
    assert.equal(fast('名前'), 4);
    assert.equal(fast('\u001b[1mID\u001b[22m'), 2);
    assert.deepEqual(asked, ['名前', '\u001b[1mID\u001b[22m']);
  });
});
