import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdvertiseError, parseAdvertised, urlOf } from './advertise.js';

describe('--advertise HOST[:PORT]', () => {
  it('reads names, IPv4 and IPv6 addresses, with or without a port', () => {
    assert.deepEqual(parseAdvertised('ctrl.example.com'), { host: 'ctrl.example.com' });
    assert.deepEqual(parseAdvertised('ctrl.example.com:443'), { host: 'ctrl.example.com', port: 443 });
    assert.deepEqual(parseAdvertised('10.0.0.7:1280'), { host: '10.0.0.7', port: 1280 });
    assert.deepEqual(parseAdvertised('[fd00::7]:1280'), { host: 'fd00::7', port: 1280 });
    assert.deepEqual(parseAdvertised('fd00::7'), { host: 'fd00::7' });
    assert.deepEqual(parseAdvertised('ctl-a'), { host: 'ctl-a' });
  });

  it('refuses what is not HOST[:PORT], naming the value', () => {
    for (const bad of [
      'https://ctrl.example.com',
      'ctrl.example.com:0',
      'ctrl.example.com:65536',
      'ctrl.example.com:http',
      'ctrl.example.com:',
      '[ctrl.example.com]:443',
      'ctrl example',
      '-ctrl.example.com',
      'ctrl..example.com',
      '',
    ]) {
      assert.throws(
        () => parseAdvertised(bad),
        (err: unknown) => err instanceof AdvertiseError && err.message.startsWith(`--advertise ${bad}: `),
        bad,
      );
    }
  });

  it('makes the URL clients are given, with the listening port when none is advertised', () => {
    assert.equal(urlOf(parseAdvertised('ctrl.example.com:443'), 1280), 'https://ctrl.example.com:443');
    assert.equal(urlOf(parseAdvertised('ctrl.example.com'), 1280), 'https://ctrl.example.com:1280');
    assert.equal(urlOf(parseAdvertised('fd00::7'), 1280), 'https://[fd00::7]:1280');
  });
});
