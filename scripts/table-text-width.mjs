// Gives cli-table3 a string-width that answers Latin text by its length and asks the real string-width
// otherwise (src/cli/output/text-width.ts says why). The real one is the copy cli-table3 itself would load,
// resolved from cli-table3's own directory, so widths stay exactly what cli-table3 computed before.
import path from 'node:path';

const CLI_TABLE3 = /[\\/]node_modules[\\/]cli-table3[\\/]/;

export const tableTextWidth = {
  name: 'table-text-width',
  setup(b) {
    const fastPath = path.join(b.initialOptions.absWorkingDir ?? process.cwd(), 'src/cli/output/text-width.ts');
    // The module below requires the real one from the same directory: it is in a namespace of its own.
    b.onResolve({ filter: /^string-width$/ }, (args) =>
      args.namespace === 'file' && CLI_TABLE3.test(args.importer)
        ? { path: 'string-width', namespace: 'table-text-width', pluginData: args.resolveDir }
        : undefined,
    );
    // cli-table3 requires string-width as CommonJS: its export is the function itself.
    b.onLoad({ filter: /.*/, namespace: 'table-text-width' }, (args) => ({
      contents:
        `const { withLatinFastPath } = require(${JSON.stringify(fastPath)});\n` +
        "module.exports = withLatinFastPath(require('string-width'));\n",
      resolveDir: args.pluginData,
      loader: 'js',
    }));
  },
};
