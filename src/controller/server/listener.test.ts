import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressKey } from './listener.js';

describe('addressKey', () => {
  it('counts IPv4 (also IPv4-mapped) per address and IPv6 per /64', () => {
    assert.equal(addressKey('192.0.2.7'), '192.0.2.7');
    assert.equal(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
    assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(addressKey(undefined), '');
  });
});
