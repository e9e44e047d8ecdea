import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../console/errors.js';
import { normalizeControllerUrl, normalizeControllerUrls } from './url.js';

describe('normalizeControllerUrl', () => {
  const cases: Array<[string, string]> = [
    ['ctrl.example:1280', 'https://ctrl.example:1280'],
    ['localhost:1280', 'https://localhost:1280'],
    ['  https://CTRL.example:1280/  ', 'https://ctrl.example:1280'],
    ['https://ctrl.example:1280/edge/management/v1', 'https://ctrl.example:1280'],
    ['ctrl.example:1280/edge/client/v1/', 'https://ctrl.example:1280'],
    ['https://ctrl.example:443', 'https://ctrl.example'],
    ['https://proxy.example/ziti/', 'https://proxy.example/ziti'],
    ['https://proxy.example/ziti/edge/management/v1?x=1#y', 'https://proxy.example/ziti'],
    ['[::1]:1280', 'https://[::1]:1280'],
  ];
  for (const [input, want] of cases) {
    it(`${input} -> ${want}`, () => assert.equal(normalizeControllerUrl(input), want));
  }

  for (const bad of [
    '',
    'http://ctrl:1280',
    'ftp://ctrl',
    'https://u:p@ctrl:1280',
    'https://exa mple',
    'ht!tp://bad url',
    'ctrl:1280/a b',
    'https://ctrl..example',
  ]) {
    it(`rejects '${bad}'`, () => assert.throws(() => normalizeControllerUrl(bad), UsageError));
  }
});

describe('normalizeControllerUrls', () => {
  it('normalises each controller of a comma-separated list, in order, each once', () => {
    assert.deepEqual(normalizeControllerUrls('a.example:1280, https://b.example:1280/,a.example:1280'), [
      'https://a.example:1280',
      'https://b.example:1280',
    ]);
    assert.deepEqual(normalizeControllerUrls('ctrl:1280'), ['https://ctrl:1280']);
  });

  it('refuses the whole list for one bad entry, or an empty one', () => {
    const plain = /'http:\/\/b.example' is not an https URL/;
    assert.throws(() => normalizeControllerUrls('a.example:1280,http://b.example'), plain);
    assert.throws(() => normalizeControllerUrls('a.example:1280,,b.example'), /the controller URL is empty/);
  });
});
