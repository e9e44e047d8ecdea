/** ZitiQL: the filter language of list endpoints (wire-protocol section 3), parsed into an AST. */
export { parseQuery, MAX_CONDITIONS, MAX_LIST_VALUES, MAX_NESTING, MAX_SORT_FIELDS, ZitiQlError } from './parser.js';
export type * from './ast.js';
