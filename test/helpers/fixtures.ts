/**
 * Material every test controller can share instead of making its own: a PKI (three RSA keys cost seconds per
 * test file) and a cheap password-hash cost. Production behaviour is unchanged: the controller takes both as
 * options, and the tests of the PKI and of hashing use the real thing.
 */
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { cp, mkdtemp, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadOrCreatePki } from '../../src/controller/pki/pki.js';

/** scrypt at 1 MiB instead of 32 MiB: the same code path, a fraction of the work. */
export const TEST_PASSWORD_COST = { N: 2 ** 10, r: 8, p: 1 };

/** Hosts the shared server certificate covers: what startController asks for on this machine. */
function testHosts(): string[] {
  return ['127.0.0.1', 'localhost', '::1', os.hostname()];
}

let shared: Promise<string> | undefined;

/**
 * A PKI directory made once per machine and user (per fixture version) and copied for each controller, so that
 * a controller may renew what it likes in its own copy. Made in a private directory and renamed into place, so
 * that test files starting at the same moment never see half of one.
 */
export async function sharedTestPki(): Promise<string> {
  shared ??= (async () => {
    const dir = path.join(os.tmpdir(), `ctl-test-pki-${os.userInfo().uid}-v1-${os.hostname()}`);
    if (existsSync(path.join(dir, 'server.cert.pem'))) return dir;
    const scratch = await mkdtemp(`${dir}-making-`);
    await loadOrCreatePki(scratch, { hosts: testHosts() });
    await rename(scratch, dir).catch(async () => rm(scratch, { recursive: true, force: true }));
    return dir;
  })();
  return shared;
}

/** A private copy of the shared PKI under `parent`, for one controller. */
export async function testPkiCopy(parent: string): Promise<string> {
  const dir = path.join(parent, 'pki');
  await cp(await sharedTestPki(), dir, { recursive: true });
  return dir;
}

/**
 * A private key made by `make` (PEM) once per machine and user and kept under `label`: big RSA keys (4096 bits and
 * more) take seconds each to generate, and tests of key sizes need them, not their freshness.
 */
export function cachedTestKey(label: string, make: (file: string) => void): string {
  const dir = path.join(os.tmpdir(), `ctl-test-keys-${os.userInfo().uid}`);
  const file = path.join(dir, `${label}.pem`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}`;
    make(partial);
    renameSync(partial, file);
  }
  return file;
}
