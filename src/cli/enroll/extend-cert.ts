// `ctl identity extend-cert`: renew the certificate of an identity file before it expires. ctl logs in with the
// current certificate (mutual TLS), sends a CSR for a key made here, saves the new certificate and key beside the
// file, confirms the new certificate to the controller (extend-verify: only then does the old one stop working),
// and moves the new file into place. If anything fails before the confirmation, the old file still works.
import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { createPrivateKey } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { newKey } from './new-key.js';
import { FailureError, UsageError } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { fileProblem } from '../../console/file-problem.js';

export interface ExtendCertOptions {
  identity?: string;
  keyType?: string;
}

/** What a certificate login answers, as far as a renewal needs it. */
interface ApiSession {
  authenticatorId?: string;
  token?: string;
  identityId?: string;
  identity?: { id: string };
}

export function buildIdentityExtendCert(deps: Deps, run = runIdentityExtendCert): CommandUnknownOpts {
  const command = withMeta(new Command('extend-cert'), {
    description:
      'Renew the certificate of an identity file with a new key made here: the old certificate works until the ' +
      'controller has confirmed the new one, then the file holds the new certificate and key (mode 0600). Default ' +
      'file: the one the current profile logged in with (`ctl login --identity`).',
    examples: ['ctl identity extend-cert', 'ctl identity extend-cert --identity laptop-7.json --key-type rsa'],
  })
    .addOption(new Option('--identity <file>', "the identity file to renew (default: the profile's)"))
    .addOption(
      new Option(
        '--key-type <type>',
        'the new key: ec (P-256) or rsa (2048 bits); default: the kind of the current key',
      ).choices(['ec', 'rsa']),
    );
  return command.action(async (o) => run(o, deps));
}

export async function runIdentityExtendCert(opts: ExtendCertOptions, deps: Deps): Promise<void> {
  const file = opts.identity ?? (await profileIdentityFile(deps));
  const { identityFileJson, readIdentityFile } = await import('./identity-file.js');
  const current = await readIdentityFile(file);
  const { createApiClient } = await import('../../client/http.js');
  const net = deps.net();
  let token: string | undefined;
  const anon = createApiClient({
    baseUrl: current.controller,
    caPem: current.ca,
    clientCert: { cert: current.cert, key: current.key },
    ...net,
    onSessionToken: (t) => (token = t),
  });
  const session = await anon
    .post<ApiSession>('/authenticate?method=cert', {}, { api: 'client', anonymous: true })
    .catch((err: Error) => {
      throw new FailureError(`cannot log in with the certificate of ${file}: ${err.message}`, [
        'it may have expired or been revoked: ask an administrator to revert the authenticator and enroll again',
      ]);
    });
  token ??= session.token;
  const identityId = session.identityId ?? session.identity?.id;
  if (!token || !session.authenticatorId || !identityId) {
    throw new FailureError(`${current.controller} accepted the certificate but returned no session`);
  }
  const api = createApiClient({ baseUrl: current.controller, caPem: current.ca, token, ...net });
  const path = `/current-identity/authenticators/${encodeURIComponent(session.authenticatorId)}`;
  const next = `${file}.new`;
  try {
    const key = await newKey(
      opts.keyType ?? (createPrivateKey(current.key).asymmetricKeyType === 'rsa' ? 'rsa' : 'ec'),
    );
    const { createCsr } = await import('../../protocol/csr.js');
    // The controller signs the subject the CSR asks for (as OpenZiti does): the identity's id, as at enrollment.
    const csr = createCsr(key, identityId);
    const extended = await api.post<{ clientCert?: string }>(
      `${path}/extend`,
      { clientCertCsr: csr },
      { api: 'client' },
    );
    if (!extended.clientCert) throw new FailureError(`${current.controller} returned no certificate`);
    const keyPem = key.export({ type: 'pkcs8', format: 'pem' }) as string;
    // Saved before it is confirmed: once confirmed, the old certificate no longer works,
    // so the new one must be on disk.
    await writeFile(next, identityFileJson({ ...current, cert: extended.clientCert, key: keyPem }), { mode: 0o600 });
    await api.post(`${path}/extend-verify`, { clientCert: extended.clientCert }, { api: 'client' });
  } catch (err) {
    await unlink(next).catch(() => undefined);
    await api.delete('/current-api-session', { api: 'client' }).catch(() => undefined);
    throw err;
  }
  await api.delete('/current-api-session', { api: 'client' }).catch(() => undefined);
  try {
    await rename(next, file);
  } catch (err) {
    throw new FailureError(`the new certificate is confirmed but ${file} could not be replaced: ${fileProblem(err)}`, [
      `the new identity file is ${next}: move it into place`,
    ]);
  }
  deps.io.info(`renewed the certificate of ${file}; the old certificate no longer works`);
}

async function profileIdentityFile(deps: Deps): Promise<string> {
  const sessions = await deps.sessions();
  const { profileName } = await sessions.current();
  const profile = (await sessions.profiles()).get(profileName);
  if (!profile?.identityFile) {
    throw new UsageError(`profile '${profileName}' did not log in with an identity file: pass --identity FILE`);
  }
  return profile.identityFile;
}
