import type { ValidateFunction } from 'ajv';
import { invalidField } from '../../protocol/errors.js';
import { compilable, configSchemaAjv } from '../../protocol/config-data.js';
import { LruCache } from '../store/driver.js';

/**
 * Config types carry JSON schemas written by users, so they get an Ajv of their own (never the one that checks
 * request bodies) and a bounded cache: a compiled schema is dropped from both when the cache lets it go.
 */
const ajv = configSchemaAjv();
const compiled = new LruCache<string, { schema: object; validate: ValidateFunction }>(256, (entry) =>
  ajv.removeSchema(entry.schema),
);

/** The schema as compiled (see compilable) and its validator; refused, naming `field`, when it does not compile. */
function compile(schema: object, field: string): { schema: object; validate: ValidateFunction } {
  const anonymous = compilable(schema);
  try {
    return { schema: anonymous, validate: ajv.compile(anonymous) };
  } catch (err) {
    throw invalidField(field, `is not a usable JSON schema: ${(err as Error).message}`, schema);
  }
}

/** The validator of a config type's schema as stored now (keyed by its last update, so an edit takes effect). */
export function validatorOf(type: { id: string; updatedAt: string; schema: unknown }): ValidateFunction {
  const key = `${type.id}@${type.updatedAt}`;
  let entry = compiled.get(key);
  if (!entry) {
    entry = compile((type.schema ?? {}) as object, 'schema');
    compiled.set(key, entry);
  }
  return entry.validate;
}

/** Checks that a schema compiles, keeping nothing of it. */
export function checkCompiles(schema: object, field: string): void {
  ajv.removeSchema(compile(schema, field).schema);
}
