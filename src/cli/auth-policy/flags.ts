// Readable flags of `ctl auth-policy create | update`, turned into OpenZiti's nested auth policy body: `--primary
// password,cert,ext-jwt` for the methods, `--max-attempts 5 --lockout 15m`, `--require-ext-jwt SIGNER` and so on.
import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ApiClient } from '../../client/types.js';
import { externalJwtSigner } from '../../resources/external-jwt-signer.js';
import { given, integer } from '../generic/flags.js';
import { resolveId } from '../generic/resolve.js';
import { parseMinutes } from '../generic/duration.js';
import { DEFAULT_UPDB_RULES } from '../../resources/auth-policy.js';
import { completeWith } from '../completion/hints.js';
import { keepsLast } from '../completion/option-facts.js';

/** The words of `--primary`, and the member of `primary` each allows. */
export const METHODS = { password: 'updb', cert: 'cert', 'ext-jwt': 'extJwt' } as const;
export type MethodWord = keyof typeof METHODS;

/** What the flags say, each only when given (update sends only those). */
export interface PolicyFlags {
  primary?: MethodWord[];
  signers?: string[];
  allowExpiredCerts?: boolean;
  minPasswordLength?: number;
  requireSpecialChar?: boolean;
  requireNumber?: boolean;
  requireMixedCase?: boolean;
  maxAttempts?: number;
  lockoutMinutes?: number;
  requireTotp?: boolean;
  /** A signer name or id; null: none (`--require-ext-jwt none`). */
  requireExtJwt?: string | null;
}

/** `password,cert`: the methods, known words only, without repeats; "" or `none` allows none. */
export const methodList = keepsLast((value: string): MethodWord[] => {
  const words = value
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  if (words.length === 1 && words[0] === 'none') return [];
  const aliases: Record<string, MethodWord> = {
    password: 'password',
    updb: 'password',
    cert: 'cert',
    certificate: 'cert',
    'ext-jwt': 'ext-jwt',
    extjwt: 'ext-jwt',
    jwt: 'ext-jwt',
  };
  const out: MethodWord[] = [];
  for (const w of words) {
    const m = aliases[w];
    if (!m)
      throw new InvalidArgumentError(
        `unknown method '${w}': use password, cert and ext-jwt (comma-separated), or none.`,
      );
    if (!out.includes(m)) out.push(m);
  }
  return out;
});

/** Upper bound of the numeric flags: far above any sensible policy, below what the store's integers hold. */
const MAX_COUNT = 1_000_000;

/**
 * `15m`, `1h`, `1d`, `1d12h` (as identity durations are written), `90` (minutes), or `0`: until an
 * administrator enables the identity.
 */
export const lockoutMinutes = keepsLast((value: string): number =>
  /^\d+$/.test(value.trim()) ? Number(value) : parseMinutes(value),
);

/** `--signers a,b --signers c`: one list in order, without repeats; "" clears it. */
function signerList(value: string, previous: string[] = []): string[] {
  return [
    ...new Set([
      ...previous,
      ...value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ]),
  ];
}

/** Adds the policy flags; returns how to read what was given. */
export function addPolicyFlags(command: CommandUnknownOpts): (cmd: CommandUnknownOpts) => PolicyFlags {
  const bool = (name: string, description: string) => {
    command.addOption(new Option(`--${name}`, description));
    command.addOption(new Option(`--no-${name}`, `turn --${name} off`));
  };
  const primary = new Option(
    '--primary <methods>',
    'primary methods allowed: password, cert, ext-jwt, comma-separated (none: none); the others are refused',
  );
  command.addOption(
    completeWith(primary.argParser(methodList), {
      kind: 'values',
      values: Object.keys(METHODS),
      list: true,
    }),
  );
  command.addOption(
    new Option(
      '--signers <signers>',
      'signers (names or ids) ext-jwt logins may come from, comma-separated or repeated; "" allows every signer',
    ).argParser(signerList),
  );
  bool('allow-expired-certs', 'accept client certificates past their expiry');
  command.addOption(
    new Option(
      '--min-password-length <n>',
      'passwords set from now on have at least this many characters (5 at least)',
    ).argParser(integer(5, MAX_COUNT)),
  );
  bool('require-special-char', 'require a character that is neither letter nor digit in passwords');
  bool('require-number', 'require a digit in passwords');
  bool('require-mixed-case', 'require upper and lower case letters in passwords');
  command.addOption(
    new Option('--max-attempts <n>', 'failed passwords in a row that lock the identity out (0: no lockout)').argParser(
      integer(0, MAX_COUNT),
    ),
  );
  command.addOption(
    new Option(
      '--lockout <duration>',
      'how long a lockout lasts: 15m, 1h, 1d12h, minutes (0: until an administrator enables the identity)',
    ).argParser(lockoutMinutes),
  );
  bool('require-totp', 'require a TOTP code (MFA) after the primary login');
  command.addOption(
    new Option(
      '--require-ext-jwt <signer>',
      'require a token of this signer (name or id) on every request, as a second factor; none: no such requirement',
    ),
  );
  return (cmd) => {
    const o = cmd.opts();
    const out: PolicyFlags = {};
    const pick = <K extends keyof PolicyFlags>(key: K, option: string) => {
      if (given(cmd, option)) out[key] = o[option] as PolicyFlags[K];
    };
    pick('primary', 'primary');
    pick('signers', 'signers');
    pick('allowExpiredCerts', 'allowExpiredCerts');
    pick('minPasswordLength', 'minPasswordLength');
    pick('requireSpecialChar', 'requireSpecialChar');
    pick('requireNumber', 'requireNumber');
    pick('requireMixedCase', 'requireMixedCase');
    pick('maxAttempts', 'maxAttempts');
    pick('lockoutMinutes', 'lockout');
    pick('requireTotp', 'requireTotp');
    if (given(cmd, 'requireExtJwt')) {
      const v = String(o.requireExtJwt).trim();
      out.requireExtJwt = v === '' || v.toLowerCase() === 'none' ? null : v;
    }
    return out;
  };
}

/** Signer names or ids as ids (the API takes ids). */
async function signerIds(api: ApiClient, refs: readonly string[]): Promise<string[]> {
  return Promise.all(refs.map((ref) => resolveId(api, externalJwtSigner, ref)));
}

/**
 * The `primary` and `secondary` members the flags set, over `base` (a whole policy on create, {} on update: then
 * only what the flags touch is sent, as a patch).
 */
export async function policyBody(
  api: ApiClient,
  flags: PolicyFlags,
  base: { primary: Record<string, Record<string, unknown>>; secondary: Record<string, unknown> },
) {
  const primary = structuredClone(base.primary);
  const secondary = { ...base.secondary };
  const set = (member: string, key: string, value: unknown) => {
    primary[member] = { ...primary[member], [key]: value };
  };
  if (flags.primary)
    for (const [word, member] of Object.entries(METHODS))
      set(member, 'allowed', flags.primary.includes(word as MethodWord));
  if (flags.signers) set('extJwt', 'allowedSigners', await signerIds(api, flags.signers));
  if (flags.allowExpiredCerts !== undefined) set('cert', 'allowExpiredCerts', flags.allowExpiredCerts);
  if (flags.minPasswordLength !== undefined) set('updb', 'minPasswordLength', flags.minPasswordLength);
  if (flags.requireSpecialChar !== undefined) set('updb', 'requireSpecialChar', flags.requireSpecialChar);
  if (flags.requireNumber !== undefined) set('updb', 'requireNumberChar', flags.requireNumber);
  if (flags.requireMixedCase !== undefined) set('updb', 'requireMixedCase', flags.requireMixedCase);
  if (flags.maxAttempts !== undefined) set('updb', 'maxAttempts', flags.maxAttempts);
  if (flags.lockoutMinutes !== undefined) set('updb', 'lockoutDurationMinutes', flags.lockoutMinutes);
  if (flags.requireTotp !== undefined) secondary.requireTotp = flags.requireTotp;
  if (flags.requireExtJwt !== undefined)
    secondary.requireExtJwtSigner =
      flags.requireExtJwt === null ? null : (await signerIds(api, [flags.requireExtJwt]))[0];
  return { primary, secondary };
}

/** A new policy before its flags: every method allowed, OpenZiti's defaults for the rest. */
export const NEW_POLICY = {
  primary: {
    cert: { allowed: true, allowExpiredCerts: false },
    updb: { ...DEFAULT_UPDB_RULES },
    extJwt: { allowed: true, allowedSigners: [] as string[] },
  },
  secondary: { requireTotp: false, requireExtJwtSigner: null as string | null },
};
