// The ca noun's own verbs, beside the generic list, show, update and delete: `create` from a PEM file, `verify`
// (with a verification certificate, or one ctl makes with the CA's key), and `jwt`. Registered in src/cli/tree.ts.
import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { ca } from '../../resources/ca.js';
import type { Deps } from '../deps.js';
import { UsageError } from '../../console/errors.js';
import { announceCreated } from '../generic/create.js';
import { addDryRun, dryRunnable } from '../generic/dry-run.js';
import { jsonObject } from '../generic/fields.js';
import { withMeta } from '../generic/meta.js';
import { suggester } from '../generic/suggest.js';
import { shellQuote } from '../../console/command-hint.js';
import { entityPath, fetchEntity, resolveId } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';
import type { NounModule } from '../nouns/verbs.js';
import { reserveSecretFile } from '../generic/secret-file.js';
import { readNamedFile } from '../../console/file-problem.js';

const list = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
];

export interface CaCreateOptions {
  name: string;
  cert: string;
  autoEnroll?: boolean;
  ottCa?: boolean;
  auth?: boolean;
  roles?: string[];
  nameFormat?: string;
  externalIdClaim?: Record<string, unknown>;
}

export function buildCaCreate(deps: Deps, run = runCaCreate): CommandUnknownOpts {
  const command = withMeta(new Command('create').argument('<name>', 'a unique name for the CA'), {
    description:
      'Register a third-party CA from its PEM certificate. It starts unverified and is trusted for nothing until ' +
      '`ctl ca verify` proves its key; the flags say what its certificates may then do.',
    examples: [
      'ctl ca create corp --cert corp-ca.pem --ott-ca --auth',
      'ctl ca create fleet --cert fleet-ca.pem --auto-enroll --roles fleet,emea --name-format "[caName]-[commonName]"',
      'ctl ca create staff --cert staff-ca.pem --auth --external-id-claim ' +
        `'{"location":"SAN_EMAIL","matcher":"SUFFIX","matcherCriteria":"@corp.example","parser":"NONE"}'`,
    ],
  })
    .requiredOption('--cert <file>', 'the CA certificate (PEM)')
    .addOption(new Option('--auto-enroll', 'certificates of the CA may enroll without a prior identity'))
    .addOption(
      new Option('--ott-ca', 'identities may enroll with a certificate of the CA and a one-time token (ottca)'),
    )
    .addOption(new Option('--auth', 'certificates of the CA may log in (certificate authentication)'))
    .addOption(
      new Option(
        '--roles <attributes>',
        'role attributes of identities made by auto enrollment (comma-separated, repeatable)',
      ).argParser(list),
    )
    .addOption(
      new Option(
        '--name-format <format>',
        'names of identities made by auto enrollment: [caName], [caId], [commonName], [requestedName], [identityId]',
      ),
    )
    .addOption(
      new Option(
        '--external-id-claim <json>',
        'how its certificates name an identity by externalId: {location ' +
          'COMMON_NAME|SAN_URI|SAN_EMAIL, matcher ALL|PREFIX|SUFFIX|SCHEME, matcherCriteria, ' +
          'parser NONE|SPLIT, parserCriteria, index} (JSON, @FILE, - for stdin)',
      ).argParser(jsonObject),
    );
  return addDryRun(command).action(async (name, o, cmd) => dryRunnable(cmd, deps, (d) => run({ name, ...o }, d)));
}

export async function runCaCreate(opts: CaCreateOptions, deps: Deps): Promise<void> {
  const certPem = await readNamedFile(opts.cert, '--cert');
  const api = await deps.api();
  const created = await api.post<{ id: string }>(entityPath(ca), {
    name: opts.name,
    certPem,
    isAutoCaEnrollmentEnabled: opts.autoEnroll === true,
    isOttCaEnrollmentEnabled: opts.ottCa === true,
    isAuthEnabled: opts.auth === true,
    identityRoles: opts.roles ?? [],
    ...(opts.nameFormat !== undefined ? { identityNameFormat: opts.nameFormat } : {}),
    ...(opts.externalIdClaim !== undefined ? { externalIdClaim: opts.externalIdClaim } : {}),
  });
  await announceCreated(deps, ca, opts.name, created.id);
  const detail = await api.get<{ verificationToken?: string }>(entityPath(ca, created.id));
  const verify = (await suggester(deps))(`ctl ca verify ${shellQuote(opts.name)} --ca-key CA-KEY.pem`);
  deps.io.info(
    `verify it with \`${verify}\`, or a certificate the CA signs with common name ${detail.verificationToken}`,
  );
}

export interface CaVerifyOptions {
  ref: string;
  cert?: string;
  caKey?: string;
}

export function buildCaVerify(deps: Deps, run = runCaVerify): CommandUnknownOpts {
  const command = withMeta(new Command('verify').addArgument(nameArgument(ca, 'the CA to verify')), {
    description:
      "Prove that the CA's key is held here: send a certificate the CA signed whose common name is the CA's " +
      'verification token (--cert), or let ctl make that certificate ' +
      'with the CA key (--ca-key; the key never leaves this machine).',
    examples: ['ctl ca verify corp --ca-key corp-ca.key', 'ctl ca verify corp --cert verification.pem'],
  })
    .addOption(
      new Option(
        '--cert <file>',
        'a verification certificate (PEM) signed by the CA, common name = the verification token',
      ),
    )
    .addOption(
      new Option('--ca-key <file>', "the CA's private key (PEM): ctl makes and signs the verification certificate"),
    );
  return command.action(async (ref, o) => run({ ref, ...o }, deps));
}

export async function runCaVerify(opts: CaVerifyOptions, deps: Deps): Promise<void> {
  if ((opts.cert === undefined) === (opts.caKey === undefined))
    throw new UsageError('give one of --cert FILE or --ca-key FILE');
  const api = await deps.api();
  const entity = await fetchEntity(api, ca, opts.ref);
  let pem: string;
  if (opts.cert !== undefined) pem = await readNamedFile(opts.cert, '--cert');
  else
    pem = await verificationCertificate(
      entity as { certPem?: string; verificationToken?: string },
      await readNamedFile(opts.caKey!, '--ca-key'),
    );
  await api.request('POST', `${entityPath(ca, entity.id)}/verify`, {
    rawBody: pem,
    headers: { 'content-type': 'text/plain' },
  });
  deps.io.info(`verified CA "${opts.ref}"`);
}

/** A short-lived certificate with CN = the verification token, signed by the CA key, for a fresh throwaway key. */
async function verificationCertificate(
  entity: { certPem?: string; verificationToken?: string },
  caKeyPem: string,
): Promise<string> {
  const { createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate } = await import('node:crypto');
  const { buildCertificate, certificateParts } = await import('../../protocol/x509.js');
  const { commonNameSubject } = await import('../../protocol/csr.js');
  if (!entity.certPem || !entity.verificationToken)
    throw new UsageError('the controller returned no certificate or verification token for this CA');
  let caKey: ReturnType<typeof createPrivateKey>;
  try {
    caKey = createPrivateKey(caKeyPem);
  } catch (err) {
    throw new UsageError(`--ca-key cannot be read: ${(err as Error).message}`, [
      'an unencrypted PEM key (PKCS#1, PKCS#8 or EC) is needed',
    ]);
  }
  if (!new X509Certificate(entity.certPem).checkPrivateKey(caKey))
    throw new UsageError("--ca-key is not the key of this CA's certificate");
  const throwaway = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const now = Date.now();
  return buildCertificate({
    issuer: { ...certificateParts(entity.certPem), key: caKey },
    subjectDer: commonNameSubject(entity.verificationToken),
    spkiDer: createPublicKey(throwaway).export({ type: 'spki', format: 'der' }),
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 3_600_000),
    extensions: [],
  }).pem;
}

export interface CaJwtOptions {
  ref: string;
  out?: string;
  force?: boolean;
}

export function buildCaJwt(deps: Deps, run = runCaJwt): CommandUnknownOpts {
  const command = withMeta(new Command('jwt').addArgument(nameArgument(ca, 'the CA')), {
    description:
      "The CA's enrollment JWT (for auto enrollment with its certificates): to stdout, or to --out FILE (mode 0600)",
    examples: ['ctl ca jwt corp', 'ctl ca jwt corp --out corp-ca.jwt'],
  })
    .addOption(new Option('--out <file>', 'write the JWT to FILE (mode 0600) instead of stdout'))
    .addOption(new Option('--force', 'overwrite an existing --out file'));
  return command.action(async (ref, o) => run({ ref, ...o }, deps));
}

export async function runCaJwt(opts: CaJwtOptions, deps: Deps): Promise<void> {
  const file =
    opts.out !== undefined && opts.out !== '-'
      ? await reserveSecretFile(opts.out, { force: opts.force, flag: '--out' })
      : undefined;
  try {
    const api = await deps.api();
    const id = await resolveId(api, ca, opts.ref);
    const res = await api.request<string>('GET', `${entityPath(ca, id)}/jwt`, {
      headers: { accept: 'application/jwt' },
    });
    const jwt = String(res.body).trim();
    if (file) {
      await file.write(jwt);
      deps.io.info(`wrote the JWT of CA "${opts.ref}" to ${opts.out}`);
    } else deps.io.out(jwt);
  } catch (err) {
    await file?.abandon();
    throw err;
  }
}

export const verbs: NounModule['verbs'] = {
  create: (deps) => buildCaCreate(deps),
  verify: (deps) => buildCaVerify(deps),
  jwt: (deps) => buildCaJwt(deps),
};
