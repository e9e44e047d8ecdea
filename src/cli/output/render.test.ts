import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestIO } from '../../client/testing/test-io.js';
import { identity } from '../../resources/identity.js';
import { colorAllowed } from '../../console/io.js';
import { render, renderOne } from './render.js';

const columns = identity.cli!.columns;
const rows = [
  {
    id: 'a1',
    name: 'laptop-7',
    typeId: 'Default',
    roleAttributes: ['sales', 'emea'],
    isAdmin: false,
    disabled: false,
    authPolicy: { id: 'default', name: 'Default' },
    externalId: null,
    createdAt: '2025-11-21T19:01:02.123Z',
    _links: { self: { href: './identities/a1' } },
  },
];

describe('render (lists)', () => {
  it('json prints the array and nothing else on stdout', async () => {
    const io = createTestIO();
    await render(io, rows, { format: 'json', columns });
    assert.deepEqual(JSON.parse(io.stdoutText()), rows);
    assert.equal(io.stderrText(), '');
  });

  it('json and yaml print an empty array for no rows, with no note', async () => {
    const json = createTestIO();
    await render(json, [], { format: 'json', columns, empty: 'no identities found' });
    assert.equal(json.stdoutText(), '[]\n');
    const yaml = createTestIO();
    await render(yaml, [], { format: 'yaml', columns });
    assert.equal(yaml.stdoutText(), '[]\n');
    assert.equal(json.stderrText() + yaml.stderrText(), '');
  });

  it('yaml prints the data as YAML', async () => {
    const io = createTestIO();
    await render(io, [{ id: 'a1', roleAttributes: ['sales'] }], { format: 'yaml', columns });
    assert.equal(io.stdoutText(), '- id: a1\n  roleAttributes:\n    - sales\n');
  });

  it('table shows default columns, wide adds the priority-1 ones', async () => {
    const table = createTestIO();
    await render(table, rows, { format: 'table', columns });
    assert.equal(
      table.stdoutText(),
      [
        'ID  NAME      TYPE     ATTRIBUTES   ADMIN  DISABLED',
        'a1  laptop-7  Default  sales, emea  false  false',
        '',
      ].join('\n'),
    );
    const wide = createTestIO();
    await render(wide, rows, { format: 'wide', columns });
    assert.match(wide.stdoutText(), /AUTH POLICY\s+EXTERNAL ID\s+CREATED/);
    assert.match(wide.stdoutText(), /Default\s+2025-11-21 19:01$/m);
  });

  it('an empty table prints no header, and a note on stderr', async () => {
    const io = createTestIO();
    await render(io, [], { format: 'table', columns, empty: 'no identities found' });
    assert.equal(io.stdoutText(), '');
    assert.equal(io.stderrText(), 'no identities found\n');
  });

  it('quiet prints ids one per line, whatever the format', async () => {
    const io = createTestIO();
    await render(io, [{ id: 'a1' }, { id: 'b2' }], { format: 'json', columns, quiet: true });
    assert.equal(io.stdoutText(), 'a1\nb2\n');
    assert.equal(io.stderrText(), '');
  });

  it('quiet with no rows prints nothing on stdout, and the note on stderr', async () => {
    const io = createTestIO();
    await render(io, [], { format: 'table', columns, quiet: true, empty: 'no identities found' });
    assert.equal(io.stdoutText(), '');
    assert.equal(io.stderrText(), 'no identities found\n');
  });

  it('escapes control characters and cuts multi-line values in cells', async () => {
    const io = createTestIO();
    await render(io, [{ id: 'a1', name: 'evil\u001b[2Jname\nsecond line' }], {
      format: 'table',
      columns: columns.slice(0, 2),
    });
    assert.equal(io.stdoutText(), 'ID  NAME\na1  evil\\x1b[2Jname…\n');
  });

  it('fits a terminal (TTY) by cutting other columns, never the name, and leaves piped output whole', async () => {
    const long = [{ id: 'a1', name: 'laptop-7', roleAttributes: ['n'.repeat(150)] }];
    const shown = columns.filter((c) => ['id', 'name', 'roleAttributes'].includes(c.field));
    const tty = createTestIO({ tty: true });
    await render(tty, long, { format: 'table', columns: shown });
    assert.ok(
      tty
        .stdoutText()
        .split('\n')
        .every((line) => line.length <= 100),
    );
    assert.ok(tty.stdoutText().includes('laptop-7'));
    const pipe = createTestIO({ tty: false });
    await render(pipe, long, { format: 'table', columns: shown });
    assert.ok(pipe.stdoutText().includes('n'.repeat(150)));
  });

  it('colours headers only when colour is allowed (TTY without NO_COLOR)', async () => {
    const colored = { ...createTestIO({ tty: true }), color: colorAllowed(true, {}) };
    await render(colored, rows, { format: 'table', columns });
    assert.match(colored.stdoutText(), /\u001b\[1mID\u001b\[22m/);
    for (const color of [
      colorAllowed(true, { NO_COLOR: '1' }),
      colorAllowed(false, {}),
      colorAllowed(true, { TERM: 'dumb' }),
    ]) {
      const io = { ...createTestIO({ tty: true }), color };
      await render(io, rows, { format: 'table', columns });
      assert.doesNotMatch(io.stdoutText(), /\u001b/);
    }
  });
});

describe('renderOne (show)', () => {
  it('prints key/value lines with the showFirst fields first', async () => {
    const io = createTestIO();
    await renderOne(io, rows[0], { format: 'table', def: identity });
    const lines = io.stdoutText().trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 7), [
      'id:             a1',
      'name:           laptop-7',
      'typeId:         Default',
      'isAdmin:        false',
      'roleAttributes: sales, emea',
      'disabled:       false',
      'authPolicy:',
    ]);
    assert.ok(!io.stdoutText().includes('_links'));
    assert.ok(io.stdoutText().includes('createdAt:      2025-11-21T19:01:02.123Z'));
  });

  it('json keeps the entity whole, links included', async () => {
    const io = createTestIO();
    await renderOne(io, rows[0], { format: 'json', def: identity });
    assert.deepEqual(JSON.parse(io.stdoutText()), rows[0]);
  });
});
