import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { buildControllerList } from './list.js';
import { buildStart } from './start.js';
import { buildStatus } from './status.js';
import { buildStop } from './stop.js';

export { buildQuickstart } from './quickstart.js';

/** `ctl controller start|stop|status`: the embedded reference controller; `list`: a network's controllers. */
export function buildController(deps: Deps) {
  return withMeta(new Command('controller'), {
    description: 'Run and manage the embedded reference controller',
    examples: [
      'ctl controller start --data-dir ./ctrl --port 1280',
      'ctl controller status',
      'ctl controller stop',
      'ctl controller list',
    ],
  })
    .addCommand(buildStart(deps))
    .addCommand(buildStop(deps))
    .addCommand(buildStatus(deps))
    .addCommand(buildControllerList(deps));
}
