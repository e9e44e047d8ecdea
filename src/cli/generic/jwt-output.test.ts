import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { jwtOutputOptions, reserveJwtOutput } from './jwt-output.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ctl-jwt-output-'));

describe('--jwt-output', () => {
  it('declares --jwt-output and --force, saying that - is stdout', () => {
    const command = jwtOutputOptions(new Command('x'), 'the new JWT');
    const byFlag = new Map(command.options.map((o) => [o.long, o.description]));
    assert.equal(byFlag.get('--jwt-output'), 'write the new JWT to FILE (mode 0600), or to stdout with -');
    assert.equal(byFlag.get('--force'), 'overwrite an existing --jwt-output file');
  });

  it('claims nothing for stdout (absent or -), else a 0600 file, refusing an existing one unless --force', async () => {
    assert.equal(await reserveJwtOutput({}), undefined);
    assert.equal(await reserveJwtOutput({ jwtOutput: '-' }), undefined);
    const file = path.join(tmp, 'a.jwt');
    const reserved = await reserveJwtOutput({ jwtOutput: file });
    assert.ok(reserved);
    await reserved.write('eyJ.x.y');
    assert.equal(readFileSync(file, 'utf8'), 'eyJ.x.y\n');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    await assert.rejects(reserveJwtOutput({ jwtOutput: file }), /already exists/);
    writeFileSync(file, 'old');
    await (await reserveJwtOutput({ jwtOutput: file, force: true }))!.write('new');
    assert.equal(readFileSync(file, 'utf8'), 'new\n');
  });

  it('refuses a directory before any request, even with --force, which would not make it a file', async () => {
    for (const force of [false, true]) {
      await assert.rejects(reserveJwtOutput({ jwtOutput: tmp, force }), (err: Error & { details: string[] }) => {
        assert.equal(err.message, `${tmp} is not a file`);
        assert.deepEqual(err.details, ['give --jwt-output a file name']);
        return true;
      });
    }
  });

  it('says that the request was made when the file cannot be written after it', async () => {
    const file = path.join(tmp, 'gone.jwt');
    writeFileSync(file, 'old');
    const reserved = await reserveJwtOutput({ jwtOutput: file, force: true });
    rmSync(file);
    mkdirSync(file); // the path became a directory while the controller was asked
    await assert.rejects(reserved!.write('eyJ.x.y'), (err: Error & { details: string[] }) => {
      assert.match(err.message, /^cannot write .*gone\.jwt: /);
      assert.deepEqual(err.details, ['the request was made: what the controller returned for this file is not saved']);
      return true;
    });
  });
});
