import { stripVTControlCharacters } from 'node:util';
import { ApiError } from '../../protocol/errors.js';
import { NotFoundError, RejectedError, UsageError } from '../../console/errors.js';
import { sendMfaCode } from '../../client/mfa-code.js';
import type { ApiClient } from '../../client/types.js';
import type { Deps } from '../deps.js';
import { reserveSecretFile } from '../generic/secret-file.js';
import { asFormat, isHuman } from '../output/formats.js';
import { renderOne } from '../output/render.js';
import { suggester } from '../generic/suggest.js';

/** The MFA paths of the current identity: the same on both APIs, so the client's default one serves. */
const MFA = '/current-identity/mfa';

interface MfaStatus {
  id: string;
  isVerified: boolean;
  provisioningUrl?: string;
  recoveryCodes?: string[];
}

/** The enrollment of the logged-in identity, or undefined when there is none (404). */
async function statusOf(api: ApiClient): Promise<MfaStatus | undefined> {
  try {
    return await api.get<MfaStatus>(MFA);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

function secretOf(provisioningUrl: string): string {
  const secret = new URL(provisioningUrl).searchParams.get('secret');
  if (!secret) throw new Error(`the controller's provisioning URL carries no secret: ${provisioningUrl}`);
  return secret;
}

/** A code from the person at the terminal; without one, a usage error naming the flag. */
async function askCode(deps: Deps, question: string): Promise<string> {
  if (!deps.io.canPrompt()) {
    throw new UsageError(
      'a code from the authenticator app is needed: pass --code CODE (or run in a terminal to be asked)',
    );
  }
  return (await (await deps.prompter()).input(question)).trim();
}

/** Sends --code, else codes asked for in a terminal (see sendMfaCode). */
async function withCode(
  deps: Deps,
  given: string | undefined,
  question: string,
  send: (code: string) => Promise<unknown>,
): Promise<void> {
  await sendMfaCode(deps.io, { given: given?.trim(), ask: () => askCode(deps, question) }, send);
}

/** The recovery codes: on stdout (the result), with a warning a person cannot miss on stderr. */
async function showRecoveryCodes(deps: Deps, codes: readonly string[]): Promise<void> {
  const format = asFormat(deps.globals().output);
  // Through the shared renderer: its YAML quotes a code such as 2E5427 that would otherwise read as a number.
  if (!isHuman(format)) return renderOne(deps.io, { recoveryCodes: codes }, { format });
  const cmd = await suggester(deps);
  deps.io.warn(
    'RECOVERY CODES: each one logs you in once in place of a code from the app, if you lose it. ' +
      'Store them somewhere safe (a password manager, or on paper): ' +
      `\`${cmd('ctl mfa recovery-codes')}\` shows them again only for a code from the app.`,
  );
  for (let i = 0; i < codes.length; i += 5) deps.io.out(codes.slice(i, i + 5).join('  '));
}

/** The QR code for a terminal, with its URL under it for those who paste it instead. */
async function showQrCode(deps: Deps, url: string): Promise<void> {
  const { default: QRCode } = await import('qrcode');
  // Black on white whatever the terminal's colours, where colour is allowed (apps scan that
  // best); plain blocks otherwise.
  const drawing = deps.io.color ? ({ type: 'terminal', small: true } as const) : ({ type: 'utf8' } as const);
  const art = (await QRCode.toString(url, drawing)).replace(/\n+$/, '');
  const needed = Math.max(...art.split('\n').map((line) => stripVTControlCharacters(line).length));
  const { width } = deps.io;
  if (width !== undefined && needed > width) {
    // A QR code whose rows wrap cannot be scanned: say what would show it rather than draw it broken.
    deps.io.warn(
      `the QR code needs a terminal at least ${needed} columns wide (this one has ${width}): widen it and run ` +
        '`ctl mfa enable` again to see it (the enrollment started here continues), or use the URL below',
    );
  } else {
    deps.io.info('Scan this QR code with your authenticator app:');
    deps.io.info(art);
  }
  deps.io.info('Or enter this URL in the app (it holds the secret: keep it private):');
  deps.io.info(`  ${url}`);
}

export interface MfaEnableOptions {
  secretOut?: string;
  force?: boolean;
  code?: string;
}

export async function runMfaEnable(opts: MfaEnableOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const interactive = io.canPrompt();
  if (opts.force && opts.secretOut === undefined) throw new UsageError('--force only applies with --secret-out FILE');
  const cmd = await suggester(deps);
  if (!interactive && opts.secretOut === undefined && opts.code === undefined) {
    throw new UsageError('ctl mfa enable shows a QR code and asks for a code: it needs a terminal', [
      `in a script: ${cmd('ctl mfa enable --secret-out FILE')}, ` +
        `then ${cmd('ctl mfa verify CODE')} with a code computed from the secret in FILE`,
    ]);
  }
  // The file is claimed before anything changes on the controller: a path that cannot be written fails now.
  const file =
    opts.secretOut === undefined
      ? undefined
      : await reserveSecretFile(opts.secretOut, { force: opts.force, flag: '--secret-out' });
  try {
    const api = await deps.api();
    let status = await statusOf(api);
    if (status?.isVerified) {
      throw new RejectedError('MFA is already enabled for this identity', [
        `to move to another authenticator: ${cmd('ctl mfa disable')}, then ${cmd('ctl mfa enable')}`,
      ]);
    }
    if (status) io.info(`Continuing the MFA enrollment started earlier (\`${cmd('ctl mfa disable')}\` abandons it).`);
    else if (opts.code !== undefined && file === undefined) {
      throw new UsageError('--code verifies an enrollment started earlier, and none is started', [
        `start one with: ${cmd('ctl mfa enable')} (in a terminal) or ${cmd('ctl mfa enable --secret-out FILE')}`,
      ]);
    } else {
      await api.post(MFA, undefined);
      status = await statusOf(api);
      if (!status) throw new Error('the controller started an MFA enrollment but does not show it');
    }
    const url = status.provisioningUrl;
    if (!url) throw new Error('the controller shows no provisioning URL for the unverified enrollment');
    const codes = status.recoveryCodes ?? [];
    if (file) {
      await file.write(secretOf(url));
      io.info(`Wrote the TOTP secret to ${opts.secretOut} (readable by you only).`);
      if (opts.code === undefined) {
        io.info(`Complete the enrollment with: ${cmd('ctl mfa verify CODE')}`);
        return;
      }
    } else if (opts.code === undefined) {
      await showQrCode(deps, url);
    }
    await withCode(deps, opts.code, 'Code shown by the app:', (code) => api.post(`${MFA}/verify`, { code }));
    io.info(`MFA is enabled: \`${cmd('ctl login')}\` will ask for a code from now on.`);
    await showRecoveryCodes(deps, codes);
  } catch (err) {
    // A secret file of an enrollment that did not happen is useless: do not leave it behind.
    if (file && !(await enrolled(deps))) await file.abandon();
    throw err;
  }
}

/** Whether the identity has an enrollment (of any state) now; false when that cannot be found out. */
async function enrolled(deps: Deps): Promise<boolean> {
  try {
    return (await statusOf(await deps.api())) !== undefined;
  } catch {
    return false;
  }
}

export async function runMfaVerify(opts: { code: string }, deps: Deps): Promise<void> {
  const api = await deps.api();
  const status = await statusOf(api);
  const cmd = await suggester(deps);
  if (!status) throw new NotFoundError('no MFA enrollment is started', [`start one with: ${cmd('ctl mfa enable')}`]);
  if (status.isVerified) throw new RejectedError('MFA enrollment is already complete');
  await api.post(`${MFA}/verify`, { code: opts.code.trim() });
  deps.io.info(`MFA is enabled: \`${cmd('ctl login')}\` will ask for a code from now on.`);
  await showRecoveryCodes(deps, status.recoveryCodes ?? []);
}

export async function runMfaStatus(deps: Deps): Promise<void> {
  const status = await statusOf(await deps.api());
  const format = asFormat(deps.globals().output);
  const state = !status ? 'disabled' : status.isVerified ? 'enabled' : 'pending';
  if (!isHuman(format)) return renderOne(deps.io, { enabled: state === 'enabled', state }, { format });
  const cmd = await suggester(deps);
  deps.io.out(
    state === 'enabled'
      ? 'MFA: enabled'
      : state === 'pending'
        ? `MFA: enrollment started, not verified (finish with \`${cmd('ctl mfa enable')}\` ` +
          `or \`${cmd('ctl mfa verify CODE')}\`; ` +
          `\`${cmd('ctl mfa disable')}\` abandons it)`
        : `MFA: not enabled (\`${cmd('ctl mfa enable')}\` sets it up)`,
  );
}

export async function runMfaDisable(opts: { code?: string }, deps: Deps): Promise<void> {
  const api = await deps.api();
  const status = await statusOf(api);
  if (!status) throw new NotFoundError('MFA is not enabled for this identity');
  if (!status.isVerified) {
    await api.delete(MFA, { headers: { 'mfa-validation-code': '' } });
    deps.io.info('The unverified MFA enrollment is abandoned.');
    return;
  }
  const question = 'Code from the app (or a recovery code) to confirm:';
  await withCode(deps, opts.code, question, (code) => api.delete(MFA, { headers: { 'mfa-validation-code': code } }));
  const login = (await suggester(deps))('ctl login');
  deps.io.info(`MFA is disabled: \`${login}\` no longer asks for a code (unless an auth policy requires one).`);
}

export async function runMfaRecoveryCodes(opts: { code?: string }, deps: Deps): Promise<void> {
  const api = await deps.api();
  const status = await statusOf(api);
  if (!status) throw new NotFoundError('MFA is not enabled for this identity');
  if (!status.isVerified) return showRecoveryCodes(deps, status.recoveryCodes ?? []);
  let codes: string[] = [];
  await withCode(deps, opts.code, 'Code from the app:', async (code) => {
    codes = (
      await api.get<{ recoveryCodes: string[] }>(`${MFA}/recovery-codes`, { headers: { 'mfa-validation-code': code } })
    ).recoveryCodes;
  });
  await showRecoveryCodes(deps, codes);
}

export async function runMfaRegenerate(opts: { code?: string }, deps: Deps): Promise<void> {
  const api = await deps.api();
  const status = await statusOf(api);
  if (!status?.isVerified) {
    const enable = (await suggester(deps))('ctl mfa enable');
    throw new NotFoundError('MFA is not enabled for this identity', [`set it up with: ${enable}`]);
  }
  let codes: string[] | undefined;
  await withCode(deps, opts.code, 'Code from the app:', async (code) => {
    const answer = await api.post<{ recoveryCodes?: string[] } | undefined>(`${MFA}/recovery-codes`, { code });
    codes = answer?.recoveryCodes;
    // OpenZiti's controller answers empty and shows the new codes on the view, for the same code.
    codes ??= (
      await api.get<{ recoveryCodes: string[] }>(`${MFA}/recovery-codes`, { headers: { 'mfa-validation-code': code } })
    ).recoveryCodes;
  });
  deps.io.info('Every earlier recovery code is void now.');
  await showRecoveryCodes(deps, codes ?? []);
}
