/** Reported by /version and used as the served spec's version. Kept in step with package.json by a test. */
export const CONTROLLER_VERSION = '0.1.0';
