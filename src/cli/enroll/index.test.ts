import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../console/errors.js';
import { findJwt } from './index.js';

const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

describe('findJwt', () => {
  it('finds the JWT among other text and whitespace, before, after or around it', () => {
    assert.equal(findJwt(`${jwt}\n`, 'a.jwt'), jwt);
    assert.equal(findJwt(`hello\n${jwt}\n`, 'a.jwt'), jwt);
    assert.equal(findJwt(`${jwt}\nregards, the admin\n`, 'a.jwt'), jwt);
    const twice = `Your token:\r\n\t${jwt}  \r\nsee you. ${jwt}\n`;
    assert.equal(findJwt(twice, 'a.jwt'), jwt, 'the same JWT twice is still one');
  });

  it('says plainly, naming the file, when it holds none or several', () => {
    const usage = (pattern: RegExp) => (e: Error) => e instanceof UsageError && pattern.test(e.message);
    assert.throws(() => findJwt('hello\nworld.x\n', 'm.jwt'), usage(/m\.jwt holds no enrollment JWT/));
    assert.throws(() => findJwt('', 'stdin'), /stdin holds no enrollment JWT/);
    const other = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ5In0.b3RoZXI';
    assert.throws(() => findJwt(`${jwt}\n${other}\n`, 'm.jwt'), usage(/holds 2 JWTs/));
  });
});
