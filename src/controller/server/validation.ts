import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ApiError, renderValue } from '../../protocol/errors.js';
import type { ResourceDef } from '../../resources/index.js';
import { checkBody } from './limits.js';
import { bodySchema, type JsonSchema, type Verb } from './schemas.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Request validation, compiled once at boot from the catalogue (never per request, never from user input).
 * A failure names the field, the reason and the offending value, under COULD_NOT_VALIDATE.
 */
export class Validators {
  private readonly ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly handlerSchemas = new WeakMap<JsonSchema, ValidateFunction>();

  constructor() {
    this.ajv.addFormat('date-time', {
      type: 'string',
      validate: (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)),
    });
    this.ajv.addFormat('uri', { type: 'string', validate: (s: string) => URL.canParse(s) });
    this.ajv.addFormat('pem', { type: 'string', validate: (s: string) => /^[\x20-\x7e\t\r\n]*$/.test(s) });
  }

  /** Validates a resource body for a verb; returns it typed as a record. */
  body(def: ResourceDef, verb: Verb, body: unknown): Record<string, unknown> {
    const key = `${def.name}:${verb}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(bodySchema(def, verb));
      this.compiled.set(key, validate);
    }
    const valid = this.check(validate, body);
    checkBody(valid, def);
    return valid;
  }

  /** Validates against a schema a handler declares as a constant (compiled once per schema object). */
  custom(schema: JsonSchema, body: unknown): Record<string, unknown> {
    let validate = this.handlerSchemas.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.handlerSchemas.set(schema, validate);
    }
    const valid = this.check(validate, body);
    checkBody(valid);
    return valid;
  }

  private check(validate: ValidateFunction, body: unknown): Record<string, unknown> {
    if (validate(body)) return body as Record<string, unknown>;
    throw toValidationError(validate.errors?.[0], body);
  }
}

export function toValidationError(error: ErrorObject | undefined, body: unknown): ApiError {
  if (!error) return new ApiError('COULD_NOT_VALIDATE');
  const path = error.instancePath.split('/').filter(Boolean).map(decodePointer);
  let field = path.join('.');
  let reason = `${field || 'body'} ${error.message ?? 'is invalid'}`;
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    path.push(missing);
    field = path.join('.');
    reason = `${field} in body is required`;
  } else if (error.keyword === 'additionalProperties') {
    path.push((error.params as { additionalProperty: string }).additionalProperty);
    field = path.join('.');
    reason = `${field} is not a known field`;
  } else if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues.filter((v) => v !== null);
    reason = `${field} must be one of: ${allowed.join(', ')}`;
  } else if (error.keyword === 'pattern' && path.length > 0) {
    reason = `${field} may not start with # or @ (attributes are plain names)`;
  }
  const value = path.some((p) => SECRET.test(p)) ? '<redacted>' : renderValue(valueAt(body, path));
  return new ApiError('COULD_NOT_VALIDATE', { cause: { field: field || 'body', reason, value } });
}

/** Values of these fields never appear in an error: a rejected password is still a password. */
const SECRET = /password|secret|token/i;

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function valueAt(body: unknown, path: string[]): unknown {
  let v: unknown = body;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}
