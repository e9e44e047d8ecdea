import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Help } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { formatItem } from './help-layout.js';
import { buildProgram } from './main.js';
import { printedHelp } from './prebuilt/records.js';
import { testDeps } from './testing/test-deps.js';
import { walk } from './tree.js';

const program = await buildProgram(testDeps());
const all: Array<[string, CommandUnknownOpts]> = [['', program], ...walk(program)];

/** A help at `width`, as a terminal shows it, but for the usage line and examples: command lines, printed whole. */
function laidOut(command: CommandUnknownOpts, width: number): string[] {
  return printedHelp(command, width)
    .split('\n')
    .filter((line) => !line.startsWith('Usage: ') && !line.startsWith('  $ '));
}

function helper(width: number): Help {
  const help = new Help();
  help.prepareContext({ helpWidth: width });
  return help;
}

describe('help layout', () => {
  it('fits every line of every command help in 80 and 100 columns, bar a single word too long for them', () => {
    for (const width of [80, 100]) {
      for (const [path, command] of all) {
        for (const line of laidOut(command, width)) {
          if (line.length <= width || !/\S\s+\S/.test(line.trim())) continue;
          assert.fail(`ctl ${path} --help at ${width} columns: ${line.length} columns: ${line}`);
        }
      }
    }
  });

  it('keeps a term that fits beside its description, and puts a wider one on a line of its own', () => {
    const description = 'a description long enough that it must be wrapped at least once in forty columns';
    assert.deepEqual(formatItem('short', 50, description, helper(80)).split('\n'), [
      '  short                                 a description long enough that it must',
      '                                        be wrapped at least once in forty',
      '                                        columns',
    ]);
    assert.deepEqual(
      formatItem('a-term-wider-than-the-column-left-for-terms', 50, description, helper(80)).split('\n'),
      [
        '  a-term-wider-than-the-column-left-for-terms',
        '                                        a description long enough that it must',
        '                                        be wrapped at least once in forty',
        '                                        columns',
      ],
    );
  });

  it("lays items out as commander does where its terms' column leaves room enough", () => {
    const description = 'a description long enough that it must be wrapped at least once in forty columns';
    for (const [term, termWidth, width] of [
      ['short', 20, 80],
      ['short', 50, 30],
      ['a-long-term', 11, 132],
    ] as const) {
      const help = helper(width);
      assert.equal(formatItem(term, termWidth, description, help), help.formatItem(term, termWidth, description, help));
    }
  });

  it("lays out any plain description where it keeps the terms' column as commander does, to the byte", () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // Now and then a word longer than any width a line is wrapped at, which stands on a line of its own.
    const long = () => 'https://controller.example/edge/management/v1/'.repeat(1 + next(4));
    const short = () => 'abcdefghijklmnopqrstuvwxyz0123456789-(),.:'.slice(next(30)).slice(0, 1 + next(18));
    const word = () => (next(40) === 0 ? long() : short());
    for (let i = 0; i < 2000; i++) {
      const description = Array.from({ length: 1 + next(25) }, word).join(' ');
      const termWidth = 1 + next(30);
      const term = 'term-with-some-length'.slice(0, 1 + next(termWidth));
      // Wide enough that the terms' column is kept (narrower, formatItem departs from commander on purpose).
      const help = helper(termWidth + 44 + next(90));
      assert.equal(
        formatItem(term, termWidth, description, help),
        help.formatItem(term, termWidth, description, help),
        JSON.stringify({ description, termWidth, term, width: help.helpWidth }),
      );
    }
  });
});
