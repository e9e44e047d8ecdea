/**
 * The package version, from package.json (bundled into the build, so nothing is read at run time there). Its own
 * module: the root reads it for `ctl --version`, which must not load the `version` command's code.
 */
export async function clientVersion(): Promise<string> {
  const { default: pkg } = await import('../../package.json', { with: { type: 'json' } });
  return pkg.version;
}
