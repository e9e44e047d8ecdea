import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { didYouMean, similarWords, unknownWordDetails } from './similar.js';

describe('similarWords', () => {
  const nouns = ['identity', 'identity-type', 'service', 'service-policy', 'session', 'config', 'config-type'];

  it('suggests the nearest words for typos: a missing, extra or wrong letter, or two letters swapped', () => {
    assert.deepEqual(similarWords('identiy', nouns), ['identity']);
    assert.deepEqual(similarWords('sevrice', nouns), ['service']);
    assert.deepEqual(similarWords('confg', nouns), ['config']);
    assert.deepEqual(similarWords('lsit', ['list', 'ls', 'show']), ['list']);
  });

  it('lists every word at the nearest distance', () => {
    assert.deepEqual(similarWords('sesvice', ['service', 'session']), ['service']);
    assert.deepEqual(similarWords('cat', ['bat', 'car', 'cow']), ['bat', 'car']);
  });

  it('suggests nothing for another word or for the word itself', () => {
    assert.deepEqual(similarWords('router', nouns), []);
    assert.deepEqual(similarWords('service', nouns), []);
    assert.deepEqual(similarWords('x', nouns), []);
  });
});

describe('didYouMean', () => {
  it('is a detail line naming the nearest words, or nothing', () => {
    assert.deepEqual(didYouMean('servics', ['services', 'configs']), ["did you mean 'services'?"]);
    assert.deepEqual(didYouMean('cat', ['bat', 'car']), ["did you mean 'bat' or 'car'?"]);
    assert.deepEqual(didYouMean('gadgets', ['services', 'configs']), []);
  });
});

describe('unknownWordDetails', () => {
  it('lists every known word, after the one the word is a typo of', () => {
    assert.deepEqual(unknownWordDetails('servics', 'kinds', ['services', 'configs']), [
      "did you mean 'services'?",
      'kinds: services, configs',
    ]);
    assert.deepEqual(unknownWordDetails('gadgets', 'kinds', ['services', 'configs']), ['kinds: services, configs']);
  });
});
