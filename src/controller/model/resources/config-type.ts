import type { ResourceModel } from '../behaviour.js';
import { checkCompiles } from '../config-schemas.js';

/** A config type's schema must compile: a schema no data could be checked against is refused at once. */
export const model: ResourceModel = {
  resource: 'config-type',
  hooks: {
    async beforeWrite(_rt, write) {
      if (write.values.schema === undefined || write.values.schema === null) return;
      checkCompiles(write.values.schema as object, 'schema');
    },
  },
};
