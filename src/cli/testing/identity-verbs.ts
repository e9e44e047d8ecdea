/**
 * The identity noun's subcommands as help and TAB list them: the generic verbs, the noun's own, then its relation
 * lists. Shared by the tests of the tree and of completion, which must agree on it.
 */
export const IDENTITY_VERBS = [
  'list',
  'show',
  'create',
  'update',
  'delete',
  'enable',
  'disable',
  'extend-cert',
  'mfa-reset',
  'authenticators',
  'enrollments',
  'service-policies',
  'edge-router-policies',
  'services',
  'edge-routers',
  'service-configs',
];
