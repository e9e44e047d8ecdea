// Test-only IO: string buffers for stdout/stderr, a fixed stdin text, and a chosen terminal state.
import { Readable, Writable } from 'node:stream';
import type { IO } from '../../console/io.js';

export interface TestIO extends IO {
  stdoutText(): string;
  stderrText(): string;
}

export function createTestIO(opts: { tty?: boolean; stdin?: string | Buffer } = {}): TestIO {
  const tty = opts.tty ?? false;
  const collect = () => {
    let text = '';
    // The callback is called at once, so every write is visible synchronously.
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString('utf8');
        done();
      },
    });
    return { stream, text: () => text };
  };
  const out = collect();
  const err = collect();
  const line = (s: string) => (s.endsWith('\n') ? s : `${s}\n`);
  return {
    stdin: Object.assign(Readable.from([opts.stdin ?? '']), { isTTY: tty }),
    stdout: out.stream,
    stderr: err.stream,
    stdinIsTTY: tty,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    color: false,
    width: tty ? 100 : undefined,
    canPrompt: () => tty,
    info: (m) => void err.stream.write(line(m)),
    warn: (m) => void err.stream.write(line(`warning: ${m}`)),
    out: (t) => void out.stream.write(line(t)),
    spin: (_text, work) => work(),
    stdoutText: out.text,
    stderrText: err.text,
  };
}
