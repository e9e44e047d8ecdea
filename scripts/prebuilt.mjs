// What ctl answers without compiling the CLI (src/cli/prebuilt/): the help of every command and the words a TAB
// completes to, written into dist/prebuilt/ from the tree the build just bundled, and dist/prebuilt.cjs, the small
// script bin/ctl.js serves them with. Built from the same sources with the same plugins (the catalogue's summaries,
// the synthetic nouns), so the files cannot drift from what the CLI prints.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** What this step writes into dist/. */
export const PREBUILT_SCRIPT = 'prebuilt.cjs';
export const PREBUILT_DIR = 'prebuilt';

/**
 * The script needs commander's help layout only: `Help` is taken from commander's own file for it, not from the
 * package's entry, which would bring the whole of commander into every --help.
 */
const helpLayoutOnly = (root) => ({
  name: 'help-layout-only',
  setup(b) {
    b.onResolve({ filter: /^(@commander-js\/extra-typings|commander)$/ }, () => ({
      path: path.join(root, 'node_modules/commander/lib/help.js'),
    }));
  },
});

/**
 * Writes dist/prebuilt/ and dist/prebuilt.cjs. `esm`: the options of the ES module build, whose bundle of the tree
 * runs here (from a file under node_modules/.cache, where its packages resolve) to make the files.
 */
export async function buildPrebuilt({ root, outdir, common, esm }) {
  const maker = path.join(root, 'node_modules', '.cache', 'ctl-build', `prebuilt-${process.pid}.mjs`);
  let files;
  try {
    await build({ ...esm, entryPoints: ['src/cli/prebuilt/make.ts'], outfile: maker, splitting: false });
    files = await (await import(pathToFileURL(maker).href)).makePrebuiltFiles();
  } finally {
    rmSync(maker, { force: true });
  }
  const dir = path.join(outdir, PREBUILT_DIR);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  await build({
    ...common,
    format: 'cjs',
    entryPoints: ['src/cli/prebuilt/entry.ts'],
    outfile: path.join(outdir, PREBUILT_SCRIPT),
    plugins: [helpLayoutOnly(root)],
  });
  return [PREBUILT_SCRIPT, ...Object.keys(files).map((name) => path.join(PREBUILT_DIR, name))];
}
