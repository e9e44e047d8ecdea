// Auth policies: the nested shape checked field by field (400 naming e.g. `primary.updb.maxAttempts`), normalised
// as OpenZiti does on save, and the signers it names checked to exist; a signer an auth policy names cannot be
// deleted. The generic routes do the rest (the default policy is built in: editable, not deletable).
import { ApiError, invalidField } from '../../../protocol/errors.js';
import { authPolicy } from '../../../resources/auth-policy.js';
import type { FieldType } from '../../../resources/types.js';
import type { AuthPolicyShape } from '../auth/auth-policy-rules.js';
import type { Consequences, ResourceModel } from '../behaviour.js';
import type { Runtime, Write } from '../../runtime.js';
import type { Row } from '../../store/repository.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

type Kind = 'boolean' | 'integer' | 'ids' | 'id-or-null';

/** The members of a declared nested object with the kind each is checked as (signer ids: arrays of strings). */
function shapeOf(type: FieldType): Json {
  if (type.kind !== 'object' || !type.properties)
    throw new Error('auth-policy: primary and secondary are declared as objects');
  const kinds: Partial<Record<FieldType['kind'], Kind>> = { boolean: 'boolean', integer: 'integer', array: 'ids' };
  return Object.fromEntries(
    Object.entries(type.properties).map(([key, member]) => {
      if (member.kind === 'object') return [key, shapeOf(member)];
      const kind = kinds[member.kind];
      if (!kind) throw new Error(`auth-policy: no check for a member of kind ${member.kind}`);
      return [key, kind];
    }),
  );
}

/**
 * The members of each nested object, with their types, from the declaration (src/resources/auth-policy.ts): what a
 * body may carry and what a full policy must. `requireExtJwtSigner` is not declared (a nullable member), so it is
 * added here.
 */
const SHAPE = {
  primary: shapeOf(authPolicy.fields.primary.type),
  secondary: { ...shapeOf(authPolicy.fields.secondary.type), requireExtJwtSigner: 'id-or-null' },
};

function checkValue(path: string, kind: Kind, value: unknown): void {
  const ok =
    kind === 'boolean'
      ? typeof value === 'boolean'
      : kind === 'integer'
        ? Number.isInteger(value) && Math.abs(value as number) <= 1_000_000_000
        : kind === 'ids'
          ? Array.isArray(value) &&
            value.length <= 256 &&
            value.every((v) => typeof v === 'string' && v !== '' && v.length <= 256)
          : value === null || (typeof value === 'string' && value.length <= 256);
  const want = {
    boolean: 'a boolean',
    integer: 'an integer',
    ids: 'an array of signer ids',
    'id-or-null': 'a signer id or null',
  }[kind];
  if (!ok) throw invalidField(path, `${path} must be ${want}`, value);
}

/**
 * The nested object `name` of a body merged over what it replaces: on patch, members left out keep their value (a
 * patch variant of each object, as OpenZiti's authPolicyPrimaryPatch); on create and replace, all must be there
 * (`requireExtJwtSigner` may be left out: null). Unknown members are refused, naming them.
 */
function merged(path: string, shape: Json, body: unknown, existing: unknown, patch: boolean): Json {
  if (!isObject(body)) throw invalidField(path, `${path} must be an object`, body);
  const out: Json = {};
  for (const key of Object.keys(body))
    if (!(key in shape)) throw invalidField(`${path}.${key}`, `${path} has no member ${key}`, body[key]);
  for (const [key, kind] of Object.entries(shape)) {
    const at = `${path}.${key}`;
    const before = isObject(existing) ? existing[key] : undefined;
    const value = body[key];
    if (typeof kind === 'object') {
      if (value === undefined || (patch && value === null)) {
        if (!patch || before === undefined) throw invalidField(at, `${at} is required`, null);
        out[key] = before;
      } else out[key] = merged(at, kind as Json, value, before, patch);
      continue;
    }
    if (value === undefined || (patch && value === null && kind !== 'id-or-null')) {
      if (patch && before !== undefined) out[key] = before;
      else if (kind === 'id-or-null') out[key] = null;
      else throw invalidField(at, `${at} is required`, null);
      continue;
    }
    checkValue(at, kind as Kind, value);
    out[key] = value;
  }
  return out;
}

/** OpenZiti's normalisation on save: a minimum length below 5 is 5, negative attempts and durations are 0. */
function normalised(primary: AuthPolicyShape['primary']): AuthPolicyShape['primary'] {
  const updb = { ...primary.updb };
  updb.minPasswordLength = Math.max(updb.minPasswordLength, 5);
  updb.maxAttempts = Math.max(updb.maxAttempts, 0);
  updb.lockoutDurationMinutes = Math.max(updb.lockoutDurationMinutes, 0);
  return {
    ...primary,
    updb,
    extJwt: { ...primary.extJwt, allowedSigners: [...new Set(primary.extJwt.allowedSigners)] },
  };
}

async function beforeWrite(rt: Runtime, w: Write): Promise<Json> {
  const values = { ...w.values };
  const patch = w.verb === 'patch';
  if (!patch || values.primary !== undefined) {
    values.primary = normalised(
      merged(
        'primary',
        SHAPE.primary,
        values.primary,
        patch ? w.existing?.primary : undefined,
        patch,
      ) as AuthPolicyShape['primary'],
    );
  }
  if (!patch || values.secondary !== undefined) {
    values.secondary = merged(
      'secondary',
      SHAPE.secondary,
      values.secondary,
      patch ? w.existing?.secondary : undefined,
      patch,
    );
  }
  const signers = rt.store.repo('external-jwt-signer');
  const primary = values.primary as AuthPolicyShape['primary'] | undefined;
  for (const [i, id] of (primary?.extJwt.allowedSigners ?? []).entries()) {
    if (!(await signers.exists({ id })))
      throw invalidField(`primary.extJwt.allowedSigners[${i}]`, `no external JWT signer has the id '${id}'`, id);
  }
  const required = (values.secondary as AuthPolicyShape['secondary'] | undefined)?.requireExtJwtSigner;
  if (required && !(await signers.exists({ id: required }))) {
    throw invalidField('secondary.requireExtJwtSigner', `no external JWT signer has the id '${required}'`, required);
  }
  return values;
}

/** The auth policies that name a signer, allowed as primary or required as secondary. */
async function policiesNamingSigner(rt: Runtime, signerId: string): Promise<{ policy: Row; field: string }[]> {
  const out: { policy: Row; field: string }[] = [];
  for (const policy of await rt.store.repo('auth-policy').findAll({})) {
    const p = policy as unknown as Row & AuthPolicyShape;
    if (p.primary?.extJwt?.allowedSigners?.includes(signerId))
      out.push({ policy, field: 'primary.extJwt.allowedSigners' });
    if (p.secondary?.requireExtJwtSigner === signerId) out.push({ policy, field: 'secondary.requireExtJwtSigner' });
  }
  return out;
}

/** A signer an auth policy names stays: deleting it would lock out, or silently free, that policy's identities. */
async function signerBeforeDelete(rt: Runtime, row: Row): Promise<void> {
  const naming = await policiesNamingSigner(rt, row.id);
  if (naming.length === 0) return;
  const { policy, field } = naming[0];
  throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
    message:
      `the external JWT signer '${row.name as string}' is named by the auth policy ` +
      `'${policy.name as string}' (${field})${naming.length > 1 ? ` and ${naming.length - 1} more` : ''}`,
    cause: { field, reason: `referenced by auth policy ${policy.id}`, value: row.id },
  });
}

/** A policy that a signer gives the identities it enrolls stays (OpenZiti's foreign key on enrollAuthPolicyId). */
async function refuseIfASignerEnrollsWith(rt: Runtime, row: Row): Promise<void> {
  const signer = await rt.store.repo('external-jwt-signer').findOne({ enrollAuthPolicyId: row.id });
  if (!signer) return;
  throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
    message: `the auth policy '${row.name as string}' is the enrollment policy of signer '${signer.name as string}'`,
    cause: { field: 'enrollAuthPolicyId', reason: `referenced by external JWT signer ${signer.id}`, value: row.id },
  });
}

/**
 * The built-in default policy is the one identities get when none is named: it stays. OpenZiti answers 409 (there,
 * identities always reference it); so does this, whether or not one does now.
 */
async function beforeDelete(rt: Runtime, row: Row): Promise<void> {
  if (!row.isSystem) return refuseIfASignerEnrollsWith(rt, row);
  throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
    message:
      `the auth policy '${row.id}' is built in: identities get ` +
      'it when none is named; it can be edited, not deleted',
    cause: { field: 'authPolicyId', reason: 'the default of every identity', value: row.id },
  });
}

export const model: ResourceModel = { resource: 'auth-policy', hooks: { beforeWrite, beforeDelete } };

export const consequences: Consequences = {
  phase: 'references',
  hooks: { 'external-jwt-signer': { beforeDelete: signerBeforeDelete } },
};
