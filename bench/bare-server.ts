import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuSecondsOf } from './controller-process.js';

/** What a bare server answers to every request: its bytes and their content type. */
export interface BareAnswer {
  body: Buffer;
  contentType: string;
}

/** The bare server's own answer, the smallest JSON envelope (37 bytes). */
export const SMALLEST_ANSWER: BareAnswer = {
  body: Buffer.from('{"data":{"hello":"world"},"meta":{}}'),
  contentType: 'application/json',
};

export interface BareServer {
  url: string;
  /** CPU time its process has used so far (user and system), in seconds. */
  cpuSeconds(): number;
  close(): void;
}

/**
 * A `node:https` server with the controller's certificate, in a process of its own, that answers every request with
 * the same bytes and does nothing else: what TLS, HTTP and the send of an answer of that size cost on this machine,
 * without our work. `workDir` holds the answer's file.
 */
export async function startBareServer(pkiDir: string, answer: BareAnswer, workDir: string): Promise<BareServer> {
  const answerFile = join(workDir, `bare-answer-${answer.body.length}.bin`);
  writeFileSync(answerFile, answer.body);
  const main = new URL('./bare-server-main.mjs', import.meta.url).pathname;
  const child = spawn(process.execPath, [main, pkiDir, answerFile, answer.contentType], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const port = Number(line.toString().trim());
  return {
    url: `https://127.0.0.1:${port}/`,
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    close: () => child.kill('SIGTERM'),
  };
}
