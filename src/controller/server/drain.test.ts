import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Server } from 'node:https';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { trackRequests } from './drain.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;

/** A response as the drain sees it, holding about 40 KB of objects as a request's own would. */
class FakeResponse extends EventEmitter {
  headersSent = false;
  readonly headers = new Map<string, string>();
  readonly held = Array.from({ length: 1000 }, (_, i) => ({ i }));
  setHeader(name: string, value: string): void {
    this.headers.set(name, value);
  }
}

function oldSpaceUsed(): number {
  return v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_used_size ?? 0;
}

test('requests answered leave nothing of theirs to the old generation: minor collections free them', () => {
  const server = new EventEmitter();
  trackRequests(server as unknown as Server);
  // The tracker's own state made old first, as in a controller that has run awhile.
  gc({ type: 'major' });
  gc({ type: 'major' });
  const before = oldSpaceUsed();
  const inFlight: FakeResponse[] = [];
  for (let i = 0; i < 2000; i++) {
    const res = new FakeResponse();
    server.emit('request', { socket: {} }, res);
    inFlight.push(res);
    if (inFlight.length > 8) inFlight.shift()?.emit('close');
    if (i % 200 === 199) gc({ type: 'minor' });
  }
  for (const res of inFlight.splice(0)) res.emit('close');
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  // About 80 MB went through; a Set of the responses in flight had 13 to 24 MB of them promoted.
  const grown = oldSpaceUsed() - before;
  assert.ok(grown < 2 * 1024 * 1024, `the old generation grew by ${(grown / 1024).toFixed(0)} KB`);
});

test('a drain marks the answers not yet begun to close their connection and counts what is in flight', async () => {
  const server = new EventEmitter();
  const drain = trackRequests(server as unknown as Server);
  const [begun, waiting, done] = [new FakeResponse(), new FakeResponse(), new FakeResponse()];
  for (const res of [begun, waiting, done]) server.emit('request', { socket: {} }, res);
  done.emit('close');
  begun.headersSent = true;
  const left = drain.drain(50);
  assert.equal(waiting.headers.get('connection'), 'close');
  assert.equal(begun.headers.get('connection'), undefined);
  const late = new FakeResponse();
  server.emit('request', { socket: {} }, late);
  assert.equal(late.headers.get('connection'), 'close');
  for (const res of [begun, waiting]) res.emit('close');
  assert.equal(await left, 1, 'the late request is still in flight at the deadline');
});
