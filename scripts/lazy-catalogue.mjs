// The catalogue as the CLI's common script sees it: `resource(name)` evaluates that resource's module on first use,
// where src/resources/index.ts evaluates every definition (forty, the config types' vendored JSON schemas with
// them) to list them in CATALOGUE: about 1 ms of a start that uses one resource and the few it refers to. The CLI
// asks the catalogue for resources by name only (the nouns' summaries are computed at build time), so the module
// that stands in for the index exports `resource` alone: an import of CATALOGUE fails the build.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/** `import { identity } from './identity.js';`: each definition the index imports, by export and file. */
const DEFINITION_IMPORT = /^import \{ (\w+) \} from '\.\/([\w-]+)\.js';$/gm;

/**
 * The plugin, for the catalogue whose index is `root`/src/resources/index.ts. It reads which file defines each
 * resource by bundling and running the index's imports, and refuses a catalogue it cannot place whole.
 */
export async function lazyCatalogue(root, common) {
  const directory = path.join(root, 'src/resources');
  const index = path.join(directory, 'index.ts');
  const imports = [...readFileSync(index, 'utf8').matchAll(DEFINITION_IMPORT)].map(([, name, file]) => ({
    name,
    file: `./${file}.ts`,
  }));
  const probe = [
    ...imports.map(({ name, file }, i) => `import { ${name} as d${i} } from ${JSON.stringify(file)};`),
    `import { CATALOGUE } from './index.ts';`,
    `export const defined = [${imports.map((_, i) => `d${i}?.name`).join(', ')}];`,
    'export const names = CATALOGUE.map((def) => def.name);',
  ].join('\n');
  const out = await build({ ...common, stdin: { contents: probe, resolveDir: directory }, write: false });
  const { defined, names } = await import(
    `data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`
  );
  const unplaced = names.filter((name) => !defined.includes(name));
  if (unplaced.length > 0) throw new Error(`lazy-catalogue: no import of src/resources/index.ts defines ${unplaced}`);
  const loaders = names.map((name) => {
    const { name: exported, file } = imports[defined.indexOf(name)];
    return `  [${JSON.stringify(name)}, () => require(${JSON.stringify(file)}).${exported}],`;
  });
  const contents = [
    '// Written by scripts/lazy-catalogue.mjs in place of src/resources/index.ts.',
    `const LOADERS = new Map([\n${loaders.join('\n')}\n]);`,
    'const evaluated = new Map();',
    'export function resource(name) {',
    '  const load = LOADERS.get(name);',
    "  if (!load) throw new Error(`unknown resource '${name}' in the catalogue`);",
    '  if (!evaluated.has(name)) evaluated.set(name, load());',
    '  return evaluated.get(name);',
    '}',
  ].join('\n');
  return {
    name: 'lazy-catalogue',
    setup(b) {
      b.onLoad({ filter: /src[\\/]resources[\\/]index\.ts$/ }, () => ({
        contents,
        loader: 'js',
        resolveDir: directory,
      }));
    },
  };
}
