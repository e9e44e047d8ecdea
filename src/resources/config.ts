import { createOnly, nameField } from './common.js';
import type { ResourceDef } from './types.js';

/**
 * A config: data of one config type, validated against the type's schema (its model,
 * src/controller/model/resources/config.ts). A config type cannot be deleted while a config refers to it (409).
 */
export const config: ResourceDef = {
  name: 'config',
  plural: 'configs',
  label: 'config',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'configs',
  description: 'Data of one config type (e.g. how a tunneler intercepts a service), validated against its schema',
  fields: {
    name: nameField('Unique name of the config'),
    configTypeId: createOnly(
      { kind: 'ref', resource: 'config-type', as: 'configType', symbol: 'type' },
      'The config type whose schema the data satisfies',
    ),
    data: {
      type: { kind: 'object' },
      description: "The config's data, validated against its config type's schema",
      create: 'required',
      replace: 'required',
      patch: 'optional',
    },
  },
  relations: {
    services: { resource: 'service', listField: 'configs', reverse: true, description: 'Services that use the config' },
  },
  cli: {
    noun: 'config',
    aliases: ['configs'],
    group: 'Services and configs',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Type', field: 'configType.name' },
      { header: 'Created', field: 'createdAt', priority: 1 },
    ],
  },
};
