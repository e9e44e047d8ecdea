// The session commands, for the command tree (src/cli/tree.ts) to register.
export { buildApi, runApi } from './api.js';
export { buildLogin, runLogin } from './login.js';
export { buildLogout, runLogout } from './logout.js';
export { buildVersion, runVersion } from './version.js';
export { buildWhoami, runWhoami } from './whoami.js';
export { buildProfile } from '../profile/index.js';
