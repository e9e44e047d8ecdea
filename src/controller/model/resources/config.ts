import { ApiError, renderValue } from '../../../protocol/errors.js';
import { checkData as checkAgainst } from '../../../protocol/config-data.js';
import type { Runtime, Write } from '../../runtime.js';
import type { ResourceModel } from '../behaviour.js';
import { validatorOf } from '../config-schemas.js';

/** A config's data must satisfy its type's schema; the error names the failing path under `data`. */
async function checkData(rt: Runtime, write: Write): Promise<void> {
  if (write.values.data === undefined) return;
  const typeId = (write.values.configTypeId ?? write.existing?.configTypeId) as string;
  const type = await rt.store.repo('config-type').get(typeId);
  const validate = validatorOf(type as unknown as { id: string; updatedAt: string; schema: unknown });
  const failure = checkAgainst(validate, write.values.data);
  if (!failure) return;
  throw new ApiError('COULD_NOT_VALIDATE', {
    message: `the data does not satisfy the schema of config type '${type.name}'`,
    cause: {
      field: failure.field,
      reason: `${failure.reason} (schema of config type ${type.name})`,
      value: renderValue(failure.value),
    },
  });
}

export const model: ResourceModel = { resource: 'config', hooks: { beforeWrite: checkData } };
