import { nameField } from './common.js';
import type { ResourceDef } from './types.js';

export const identityType: ResourceDef = {
  name: 'identity-type',
  plural: 'identity-types',
  label: 'identity type',
  api: 'management',
  operations: ['list', 'get'],
  table: 'identity_types',
  description: 'Built-in identity types (Default, Router)',
  hasSystemEntities: true,
  builtIns: [
    { id: 'Default', name: 'Default' },
    { id: 'Router', name: 'Router' },
  ],
  fields: {
    name: { ...nameField('Name of the type'), create: 'no', replace: 'no', patch: 'no', readOnly: true },
  },
  cli: {
    noun: 'identity-type',
    aliases: ['identity-types'],
    group: 'Identities and authentication',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
    ],
  },
};
