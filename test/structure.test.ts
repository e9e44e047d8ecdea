// The shape of the source tree, read from its imports: no circle anywhere, and every import points down, between the
// top-level parts (docs/architecture.md: cli -> client -> console, protocol; controller -> protocol; both read
// resources) and between the controller's floors. Static imports and re-exports are edges, `import type` included
// (a circle of types is still a circle to whoever reads the code). A dynamic `import()` is not an edge: it is how the
// CLI loads a command only when it runs, and the one way the CLI may reach the controller (`ctl controller`,
// `ctl quickstart`); a dynamic import elsewhere is held to the same directions. Unit tests beside their modules are
// not part of the structure (a test may use whatever it needs to build its fixture).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

/** What each top-level part may import statically (itself always). */
const PARTS: Record<string, readonly string[]> = {
  resources: [],
  protocol: ['resources'],
  console: ['protocol'],
  client: ['console', 'protocol', 'resources'],
  cli: ['client', 'console', 'protocol', 'resources'],
  controller: ['protocol', 'resources'],
};

/** Where the CLI may reach the controller with `import()`: the commands that run one. */
const CONTROLLER_LOADERS = ['cli/controller/'];

/**
 * The controller's floors, lowest first (docs/architecture.md, "The controller's floors"): a file may import its
 * own floor and those below. A file belongs to the floor of the longest prefix that names it.
 */
const FLOORS: ReadonlyArray<{ name: string; paths: readonly string[] }> = [
  { name: 'storage', paths: ['store/', 'pki/', 'version.ts', 'data-dir.ts', 'start-error.ts'] },
  { name: 'services', paths: ['server/', 'auth/', 'cluster/', 'client-state.ts'] },
  { name: 'context', paths: ['runtime.ts'] },
  { name: 'model', paths: ['model/'] },
  { name: 'routes', paths: ['routes/'] },
  { name: 'assembly', paths: ['registry.ts', 'discovered-modules.ts', 'server/app.ts'] },
  { name: 'wiring', paths: ['index.ts', 'bootstrap.ts', 'types.ts', 'advertise.ts', 'inject.ts'] },
];

interface Import {
  from: string;
  to: string;
  dynamic: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const STATIC = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Every relative import in src/, as paths relative to src/ (`.js` specifiers name the `.ts` files). */
function importsOf(files: readonly string[]): Import[] {
  const imports: Import[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const target = (spec: string) => relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
    const from = relative(SRC, file);
    for (const m of text.matchAll(STATIC)) imports.push({ from, to: target(m[1]), dynamic: false });
    for (const m of text.matchAll(DYNAMIC)) imports.push({ from, to: target(m[1]), dynamic: true });
  }
  return imports;
}

/** The strongly connected components of more than one file (Tarjan): each is a circle of imports. */
function circles(files: readonly string[], edges: readonly Import[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!next.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const f of next.keys()) if (!index.has(f)) visit(f);
  return found;
}

const partOf = (path: string) => path.split('/')[0];

function floorOf(controllerPath: string): number {
  let best = { floor: -1, length: 0 };
  FLOORS.forEach((floor, i) => {
    for (const p of floor.paths) {
      const match = p.endsWith('/') ? controllerPath.startsWith(p) : controllerPath === p;
      if (match && p.length > best.length) best = { floor: i, length: p.length };
    }
  });
  return best.floor;
}

const files = sourceFiles(SRC);
const imports = importsOf(files);
const relativeFiles = files.map((f) => relative(SRC, f));

describe('the structure of src/', () => {
  it('finds the imports it checks (the reader works)', () => {
    assert.ok(relativeFiles.length > 200, `${relativeFiles.length} source files`);
    assert.ok(imports.some((i) => i.from === 'controller/index.ts' && i.to === 'controller/runtime.ts' && !i.dynamic));
    assert.ok(imports.some((i) => i.from === 'cli/tree.ts' && i.to === 'cli/controller/index.ts' && i.dynamic));
    const missing = imports.filter((i) => !relativeFiles.includes(i.to) && !i.to.endsWith('.json'));
    assert.deepEqual(missing, [], 'every import names a source file');
  });

  it('has no circle of imports', () => {
    assert.deepEqual(
      circles(
        relativeFiles,
        imports.filter((i) => !i.dynamic),
      ),
      [],
    );
  });

  it('imports between the top-level parts only in the documented directions', () => {
    const wrong = imports.filter((i) => {
      const [from, to] = [partOf(i.from), partOf(i.to)];
      if (from === to || PARTS[from].includes(to)) return false;
      const loader = CONTROLLER_LOADERS.some((p) => i.from.startsWith(p));
      return !(i.dynamic && from === 'cli' && to === 'controller' && loader);
    });
    assert.deepEqual(
      wrong.map((i) => `${i.from} -> ${i.to}${i.dynamic ? ' (dynamic)' : ''}`),
      [],
    );
  });

  it('places every controller file on a floor, and no floor imports one above it', () => {
    const controller = relativeFiles.filter((f) => partOf(f) === 'controller').map((f) => f.slice(11));
    assert.deepEqual(
      controller.filter((f) => floorOf(f) < 0),
      [],
      'files on no floor',
    );
    const upward = imports
      .filter((i) => partOf(i.from) === 'controller' && partOf(i.to) === 'controller')
      .map((i) => ({ ...i, fromFloor: floorOf(i.from.slice(11)), toFloor: floorOf(i.to.slice(11)) }))
      .filter((i) => i.toFloor > i.fromFloor);
    const named = upward.map((i) => `${i.from} (${FLOORS[i.fromFloor].name}) -> ${i.to} (${FLOORS[i.toFloor].name})`);
    assert.deepEqual(named, []);
  });

  it('keeps the model apart from the routes: adapters import the model, the model never a route', () => {
    const inController = (prefix: string) => (path: string) => path.startsWith(`controller/${prefix}`);
    const modelToRoutes = imports.filter((i) => inController('model/')(i.from) && inController('routes/')(i.to));
    assert.deepEqual(
      modelToRoutes.map((i) => `${i.from} -> ${i.to}`),
      [],
    );
    const adaptersOnModel = imports.filter((i) => inController('routes/')(i.from) && inController('model/')(i.to));
    assert.ok(adaptersOnModel.length > 20, `${adaptersOnModel.length} imports of the model by the routes`);
  });
});
