/**
 * The set-up most CLI end-to-end files share: a controller, an admin helper on it, a CLI logged in as the admin
 * in a config directory of its own, and a scratch directory, made before the file's tests and removed after.
 * The fields are set once the file's `before` has run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { type LoggedInCli, withLoggedInCli } from './cli.js';
import { type HttpHelper, type TestController, startTestController } from './controller.js';

export interface CliFixture {
  ctl: TestController;
  admin: HttpHelper;
  cli: LoggedInCli;
  tmp: string;
}

export function useCliFixture(name: string): CliFixture {
  const fixture = {} as CliFixture;
  before(async () => {
    fixture.ctl = await startTestController();
    fixture.admin = await fixture.ctl.admin();
    fixture.cli = await withLoggedInCli(fixture.ctl);
    fixture.tmp = await mkdtemp(path.join(os.tmpdir(), `ctl-${name}-`));
  });
  after(async () => {
    await fixture.cli?.cleanup();
    if (fixture.tmp) await rm(fixture.tmp, { recursive: true, force: true });
    await fixture.ctl?.close();
  });
  return fixture;
}
