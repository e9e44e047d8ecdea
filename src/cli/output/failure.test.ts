import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from '@commander-js/extra-typings';
import { RequestApiError, TransportError } from '../../client/types.js';
import { ApiError } from '../../protocol/errors.js';
import { AuthError, EXIT, NotFoundError, RejectedError, UsageError } from '../../console/errors.js';
import { describeFailure, formatFailure, mostSevere } from './failure.js';

describe('describeFailure', () => {
  it('uses the exit code of typed CLI errors, with their details', () => {
    assert.deepEqual(describeFailure(new UsageError('bad flag', ['use --x'])), {
      exitCode: EXIT.usage,
      lines: ['bad flag', 'use --x'],
    });
    assert.equal(describeFailure(new NotFoundError('gone')).exitCode, EXIT.notFound);
    assert.equal(describeFailure(new RejectedError('no')).exitCode, EXIT.rejected);
    assert.equal(describeFailure(new AuthError('who')).exitCode, EXIT.auth);
  });

  it('maps controller errors by code and status, with a login hint for auth', () => {
    const auth = describeFailure(new ApiError('UNAUTHORIZED'));
    assert.equal(auth.exitCode, EXIT.auth);
    assert.match(auth.lines.at(-1)!, /ctl login/);
    assert.equal(describeFailure(new ApiError('INVALID_AUTH')).exitCode, EXIT.auth);
    assert.equal(describeFailure(new ApiError('NOT_FOUND')).exitCode, EXIT.notFound);
    assert.equal(describeFailure(new ApiError('INVALID_FILTER')).exitCode, EXIT.rejected);
    assert.equal(describeFailure(new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY')).exitCode, EXIT.rejected);
    assert.equal(describeFailure(new ApiError('SOMETHING', { status: 409 })).exitCode, EXIT.rejected);
    assert.equal(describeFailure(new ApiError('SERVER_TOO_MANY_REQUESTS')).exitCode, EXIT.failure);
    assert.equal(describeFailure(new ApiError('UNHANDLED')).exitCode, EXIT.failure);
    // Refused for the entity, not for the session: no login hint.
    const forbidden = describeFailure(new ApiError('FORBIDDEN'));
    assert.equal(forbidden.exitCode, EXIT.rejected);
    assert.ok(!forbidden.lines.some((l) => /ctl login/.test(l)));
  });

  it('says a duplicate in words, for whichever resource the request was about (exit 6)', () => {
    const dup = (path: string, field: string, value: string) =>
      describeFailure(
        new RequestApiError(
          new ApiError('COULD_NOT_VALIDATE', {
            cause: { field, reason: `duplicate value '${value}' in unique index on x store`, value },
          }),
          {
            method: 'POST',
            path,
          },
        ),
      );
    assert.deepEqual(dup('/identities', 'name', 'laptop-7'), {
      exitCode: EXIT.rejected,
      lines: ['an identity named laptop-7 already exists'],
    });
    assert.deepEqual(dup('/auth-policies/x', 'name', 'strict').lines, ['an auth policy named strict already exists']);
    assert.deepEqual(dup('/authenticators', 'username', 'bob').lines, [
      'an authenticator with username bob already exists',
    ]);
    // Other validation failures keep the controller's words and the cause.
    const other = describeFailure(
      new ApiError('COULD_NOT_VALIDATE', { cause: { field: 'name', reason: 'is too long', value: 'x' } }),
    );
    assert.equal(other.lines[1], 'name: is too long (x)');
  });

  it("prints the controller's cause whatever its shape: a string, a field error, a reason or message, nested", () => {
    const lines = (cause: unknown) =>
      describeFailure(new ApiError('COULD_NOT_VALIDATE', { cause: cause as never })).lines.slice(1);
    const tooShort = 'the password must be at least 12 characters long';
    assert.deepEqual(lines(tooShort), [tooShort]);
    assert.deepEqual(lines({ field: 'password', reason: 'the password is too short', value: '<redacted>' }), [
      'password: the password is too short (<redacted>)',
    ]);
    assert.deepEqual(lines({ reason: 'only a reason' }), ['only a reason']);
    const nested = { code: 'UNHANDLED', message: 'outer', cause: { code: 'X', message: 'inner', cause: 'innermost' } };
    assert.deepEqual(lines(nested), ['outer', 'inner', 'innermost']);
    assert.deepEqual(lines({ message: 'same', cause: { message: 'same' } }), ['same']);
    assert.deepEqual(lines(undefined), []);
  });

  it('a busy or forbidden port and an unusable database are ordinary failures naming port or file, not bugs', () => {
    const listen = (code: string) =>
      Object.assign(new Error(`listen ${code}`), { code, syscall: 'listen', port: 1280, address: '0.0.0.0' });
    const sqlite = (code: string, path?: string) =>
      Object.assign(new Error('sqlite says no'), { code, ...(path ? { path } : {}) });
    for (const err of [
      listen('EADDRINUSE'),
      listen('EACCES'),
      sqlite('SQLITE_CORRUPT', '/d/ctl.db'),
      sqlite('SQLITE_NOTADB'),
      sqlite('SQLITE_FULL'),
      sqlite('SQLITE_CANTOPEN'),
    ]) {
      const f = describeFailure(err);
      assert.equal(f.exitCode, EXIT.failure);
      assert.doesNotMatch(f.lines.join('\n'), /bug|unexpected/);
    }
    assert.match(describeFailure(listen('EADDRINUSE')).lines[0]!, /port 1280 on 0\.0\.0\.0 is already in use/);
    assert.match(describeFailure(sqlite('SQLITE_CORRUPT', '/d/ctl.db')).lines[0]!, /\/d\/ctl\.db is damaged/);
  });

  it('prints field causes one per line as field: reason (value)', () => {
    const err = new ApiError('COULD_NOT_VALIDATE', { cause: { field: 'name', reason: 'is required', value: '' } });
    assert.deepEqual(formatFailure(describeFailure(err)), [
      `error: ${err.message} (COULD_NOT_VALIDATE)`,
      '  name: is required',
    ]);
    const withValue = new ApiError('COULD_NOT_VALIDATE', {
      cause: { field: 'type', reason: 'must be one of User, Device', value: 'Robot' },
    });
    assert.equal(formatFailure(describeFailure(withValue))[1], '  type: must be one of User, Device (Robot)');
    const message = new ApiError('NOT_FOUND', {
      cause: { code: 'UNHANDLED', message: 'identity with id x not found' },
    });
    assert.equal(formatFailure(describeFailure(message))[1], '  identity with id x not found');
  });

  it('gives transport failures exit 1 with their hint', () => {
    const failure = describeFailure(
      new TransportError('cannot reach https://x:1280', 'https://x:1280', 'is the controller running?'),
    );
    assert.deepEqual(failure, {
      exitCode: EXIT.failure,
      lines: ['cannot reach https://x:1280', 'is the controller running?'],
    });
  });

  it('leaves commander usage errors to commander (already printed), exit 2; help exits 0', () => {
    assert.deepEqual(describeFailure(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'")), {
      exitCode: EXIT.usage,
      lines: [],
    });
    assert.equal(describeFailure(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)')).exitCode, EXIT.ok);
  });

  it('treats Ctrl-C in a prompt as an interruption', () => {
    const err = Object.assign(new Error('User force closed the prompt'), { name: 'ExitPromptError' });
    assert.equal(describeFailure(err).exitCode, EXIT.interrupted);
  });

  it('reports anything else as a bug, with the stack only in debug mode', () => {
    const err = new TypeError('x is undefined');
    const quiet = describeFailure(err);
    assert.equal(quiet.exitCode, EXIT.failure);
    assert.deepEqual(quiet.lines.slice(0, 2), [
      'unexpected error: x is undefined',
      'this is a bug in ctl: please report it, with the output of --debug',
    ]);
    assert.equal(quiet.lines.length, 2);
    assert.ok(describeFailure(err, true).lines.length > 2);
  });

  it('picks the most severe exit code of several failures', () => {
    assert.equal(mostSevere([EXIT.notFound, EXIT.rejected]), EXIT.rejected);
    assert.equal(mostSevere([EXIT.notFound, EXIT.failure, EXIT.auth]), EXIT.failure);
    assert.equal(mostSevere([EXIT.notFound]), EXIT.notFound);
    assert.equal(mostSevere([]), EXIT.ok);
  });
});
