import { Ajv, type ValidateFunction } from 'ajv';
import { ApiError, invalidField } from '../../protocol/errors.js';
import type { ResourceBehaviour } from '../registry.js';
import type { Runtime, Write } from '../runtime.js';
import { LruCache } from '../store/driver.js';
import { toValidationError } from '../server/validation.js';

/**
 * Config types carry JSON schemas written by users, so they get an Ajv of their own (never the one that checks
 * request bodies) and a bounded cache: a compiled schema is dropped from both when the cache lets it go.
 */
const ajv = new Ajv({ allErrors: false, strict: false });
const compiled = new LruCache<string, { schema: object; validate: ValidateFunction }>(256, (entry) => ajv.removeSchema(entry.schema));

function compile(schema: object, field: string): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (err) {
    throw invalidField(field, `is not a usable JSON schema: ${(err as Error).message}`, schema);
  }
}

/** The validator of a config type's schema as stored now (keyed by its last update, so an edit takes effect). */
function validatorOf(type: { id: string; updatedAt: string; schema: unknown }): ValidateFunction {
  const key = `${type.id}@${type.updatedAt}`;
  let entry = compiled.get(key);
  if (!entry) {
    const schema = (type.schema ?? {}) as object;
    entry = { schema, validate: compile(schema, 'schema') };
    compiled.set(key, entry);
  }
  return entry.validate;
}

/** A config type's schema must compile: a schema no data could be checked against is refused at once. */
export const configTypeBehaviour: ResourceBehaviour = {
  resource: 'config-type',
  hooks: {
    async beforeWrite(_rt, write) {
      if (write.values.schema === undefined || write.values.schema === null) return;
      const schema = write.values.schema as object;
      compile(schema, 'schema');
      ajv.removeSchema(schema);
    },
  },
};

/** A config's data must satisfy its type's schema; the error names the failing path under `data`. */
async function checkData(rt: Runtime, write: Write): Promise<void> {
  if (write.values.data === undefined) return;
  const typeId = (write.values.configTypeId ?? write.existing?.configTypeId) as string;
  const type = await rt.store.repo('config-type').get(typeId);
  const validate = validatorOf(type as unknown as { id: string; updatedAt: string; schema: unknown });
  if (validate(write.values.data)) return;
  const error = toValidationError(validate.errors?.[0], write.values.data);
  const cause = error.cause as { field?: string; reason?: string; value?: string } | undefined;
  const field = cause?.field ? `data.${cause.field}` : 'data';
  throw new ApiError('COULD_NOT_VALIDATE', {
    message: `the data does not satisfy the schema of config type '${type.name}'`,
    cause: { field, reason: `${cause?.reason ?? 'is invalid'} (schema of config type ${type.name})`, value: cause?.value ?? '' },
  });
}

export const configBehaviour: ResourceBehaviour = { resource: 'config', hooks: { beforeWrite: checkData } };
