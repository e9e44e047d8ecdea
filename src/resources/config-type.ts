import { nameField } from './common.js';
import { BUILT_IN_CONFIG_TYPES } from './config-type-schemas.js';
import type { ResourceDef } from './types.js';

/**
 * A kind of config: the JSON schema its configs must satisfy. A standard resource: this declaration is all of it
 * (routes, validation, storage, links, CLI noun); the schema check of configs lives with the config's behaviour.
 *
 * The types OpenZiti ships (intercept.v1, host.v1, ...) are present from the first start, with OpenZiti's ids. They
 * are built in here: neither changed nor deleted. OpenZiti lets an admin rename, re-schema or delete them; we do
 * not, because tunnelers find them by name, their schemas are what keeps configs usable, and the store ensures
 * built-ins at every start (a deleted one would come back, and a new type given its name would stop the start).
 */
export const configType: ResourceDef = {
  name: 'config-type',
  plural: 'config-types',
  label: 'config type',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'config_types',
  description: 'A kind of config, with the JSON schema its configs must satisfy (intercept.v1, host.v1, ...)',
  hasSystemEntities: true,
  builtIns: BUILT_IN_CONFIG_TYPES,
  fields: {
    name: nameField('Unique name of the config type, e.g. intercept.v1'),
    schema: {
      type: { kind: 'object' },
      description: 'JSON schema that the data of every config of this type must satisfy ({} accepts any object)',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      default: {},
    },
    target: {
      type: { kind: 'enum', values: ['service', 'router'] },
      // Fixed at creation, as in OpenZiti (its update models have no target, and its store refuses a change).
      description: 'What configs of this type configure; set at creation only',
      create: 'optional',
      replace: 'no',
      patch: 'no',
      nullable: true,
      default: 'service',
      filterable: true,
      sortable: true,
    },
  },
  relations: {
    configs: { resource: 'config', foreignKey: 'configTypeId', description: 'Configs of this type' },
  },
  cli: {
    noun: 'config-type',
    aliases: ['config-types'],
    group: 'Services and configs',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Target', field: 'target' },
      { header: 'Created', field: 'createdAt', priority: 1 },
    ],
  },
};
