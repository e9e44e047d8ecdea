import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * Checking a config's data against its config type's JSON schema, the same way in the controller (on every write)
 * and in the CLI (before sending, when the type's schema is known): the same validator settings, and the failing
 * path named the same way (`data.portRanges.0.low`).
 */

/** Where data fails a schema: the dotted path under `data`, why, and the value found there. */
export interface DataFailure {
  field: string;
  reason: string;
  value: unknown;
}

/**
 * A validator for schemas written by users: its own Ajv (never the one that checks request bodies), the formats
 * OpenZiti's validator knows (ipv4, ipv6, hostname, date-time, uri, ...), and other formats, such as the
 * idn-hostname of OpenZiti's own schemas, ignored as OpenZiti ignores them.
 */
export function configSchemaAjv(): Ajv {
  const ajv = new Ajv({ allErrors: false, strict: false, logger: false });
  (addFormatsModule as unknown as (a: Ajv) => Ajv)(ajv);
  return ajv;
}

/**
 * The schema as compiled: without its `$id`, which only names it; two types (or two versions of one) may carry the
 * same one, and Ajv would refuse the second as a duplicate.
 */
export function compilable(schema: object): Record<string, unknown> {
  const { $id: _id, ...anonymous } = schema as Record<string, unknown>;
  return anonymous;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  let v: unknown = data;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

/** The first failure of a validation, as a path under `data` and a reason a person can act on. */
export function describeFailure(error: ErrorObject | undefined, data: unknown): DataFailure {
  if (!error) return { field: 'data', reason: 'data does not satisfy the schema', value: data };
  const path = error.instancePath.split('/').filter(Boolean).map(decodePointer);
  let reason: string;
  switch (error.keyword) {
    case 'required':
      path.push((error.params as { missingProperty: string }).missingProperty);
      reason = 'is required';
      break;
    case 'additionalProperties':
      path.push((error.params as { additionalProperty: string }).additionalProperty);
      reason = 'is not a known field';
      break;
    case 'enum': {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      reason = `must be one of: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    }
    default:
      reason = error.message ?? 'is invalid';
  }
  const field = ['data', ...path].join('.');
  return { field, reason: `${field} ${reason}`, value: valueAt(data, path) };
}

/** Checks data with a compiled validator: undefined when it passes. */
export function checkData(validate: ValidateFunction, data: unknown): DataFailure | undefined {
  return validate(data) ? undefined : describeFailure(validate.errors?.[0], data);
}
