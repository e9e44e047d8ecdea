// Records the difference between the catalogue's declared schema and the recorded migration history as the next
// migration. Usage: npm run schema:migration -- <short-name>     (e.g. services-and-configs)
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE, resource } from '../src/resources/index.js';
import { MIGRATIONS } from '../src/controller/store/migrations/index.js';
import { EMPTY_SCHEMA, applyOps, diffSchemas } from '../src/controller/store/schema-diff.js';
import { declaredSchema } from '../src/controller/store/schema-model.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/controller/store/migrations');
const name = process.argv[2];
if (!name || !/^[a-z0-9-]+$/.test(name)) {
  console.error('usage: npm run schema:migration -- <short-name>   (lower-case letters, digits and dashes)');
  process.exit(2);
}
const recorded = MIGRATIONS.reduce((schema, m) => applyOps(schema, m.ops), EMPTY_SCHEMA);
const ops = diffSchemas(recorded, declaredSchema(CATALOGUE, resource));
if (ops.length === 0) {
  console.error('the catalogue and the recorded migrations agree: nothing to record');
  process.exit(0);
}
// After the last recorded id, not the count: ids may skip a number another branch reserved.
const id = (MIGRATIONS.at(-1)?.id ?? 0) + 1;
const file = `${String(id).padStart(4, '0')}-${name}`;
writeFileSync(
  path.join(dir, `${file}.ts`),
  `// Recorded by \`npm run schema:migration -- ${name}\`.\n` +
    '// Never edit a migration that has shipped: record a new one.\n' +
    `import type { Migration } from '../schema-diff.js';\n\n` +
    `export const migration: Migration = ${JSON.stringify({ id, name, ops }, null, 2)};\n`,
);
const files = readdirSync(dir)
  .filter((f) => /^\d{4}-.*\.ts$/.test(f))
  .sort()
  .map((f) => f.replace(/\.ts$/, ''));
const alias = (f: string) => `m${f.slice(0, 4)}`;
writeFileSync(
  path.join(dir, 'index.ts'),
  `import type { Migration } from '../schema-diff.js';\n` +
    files.map((f) => `import { migration as ${alias(f)} } from './${f}.js';`).join('\n') +
    '\n\n/**\n' +
    ' * The recorded history of the schema, oldest first. ' +
    'Never edit a migration that has shipped: change the catalogue,\n' +
    ' * then run `npm run schema:migration -- <name>` to record the difference as the next one. ' +
    '`schema.test.ts` fails\n' +
    ' * while the catalogue and this history disagree.\n */\n' +
    `export const MIGRATIONS: readonly Migration[] = [${files.map(alias).join(', ')}];\n`,
);
// Laid out as the rest of the tree, so that the lint step passes on what was just recorded.
const biome = path.resolve(dir, '../../../../node_modules/.bin/biome');
const formatted = spawnSync(biome, ['format', '--write', path.join(dir, `${file}.ts`), path.join(dir, 'index.ts')]);
if (formatted.status !== 0) console.error(`could not format the migration: run npm run format (${formatted.stderr})`);
console.error(`recorded ${ops.length} operation(s) as migration ${file}`);
