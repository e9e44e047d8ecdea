import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cell, escapeControls, oneLine, shortDate, truncate, valueAt } from './cells.js';

describe('cells', () => {
  it('reads dotted paths and tolerates missing steps', () => {
    assert.equal(valueAt({ authPolicy: { name: 'Default' } }, 'authPolicy.name'), 'Default');
    assert.equal(valueAt({ authPolicy: null }, 'authPolicy.name'), undefined);
    assert.equal(valueAt({}, 'a.b.c'), undefined);
  });

  it('escapes control characters so that they cannot act on the terminal', () => {
    assert.equal(escapeControls('red\u001b[31mtext\u0007'), 'red\\x1b[31mtext\\x07');
    assert.equal(escapeControls('a\tb\u009bc\u007f'), 'a\\tb\\x9bc\\x7f');
  });

  it('keeps the first line of multi-line text and marks the cut', () => {
    assert.equal(oneLine('first\nsecond'), 'first…');
    assert.equal(oneLine('first\r\nsecond'), 'first…');
    assert.equal(oneLine('single'), 'single');
  });

  it('shortens ISO timestamps to minutes in UTC and leaves other text alone', () => {
    assert.equal(shortDate('2025-11-21T19:01:02.123Z'), '2025-11-21 19:01');
    assert.equal(shortDate('2025-11-21T21:01:02+02:00'), '2025-11-21 19:01');
    assert.equal(shortDate('2025-11-21'), '2025-11-21');
    assert.equal(shortDate('laptop-7'), 'laptop-7');
  });

  it('renders values as one-line cells', () => {
    assert.equal(cell(['sales', 'emea']), 'sales, emea');
    assert.equal(cell(true), 'true');
    assert.equal(cell(false), 'false');
    assert.equal(cell(null), '');
    assert.equal(cell(undefined), '');
    assert.equal(cell(42), '42');
    assert.equal(cell({ a: 1 }), '{"a":1}');
    assert.equal(cell('multi\nline'), 'multi…');
    assert.equal(cell('2025-01-02T03:04:05Z'), '2025-01-02 03:04');
  });

  it('truncates with an ellipsis', () => {
    assert.equal(truncate('abcdef', 4), 'abc…');
    assert.equal(truncate('abc', 4), 'abc');
    assert.equal(truncate('abc', 1), '…');
  });
});
