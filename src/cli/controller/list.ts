import { controller } from '../../resources/controller.js';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { buildList, runList } from '../generic/list.js';

/**
 * The controllers resource as `ctl controller list` shows it. It has no noun of its own (`ctl controller` runs the
 * local controller), so its columns are given here rather than in the catalogue, which would make it a noun.
 */
const CONTROLLERS: ResourceDef = {
  ...controller,
  cli: {
    noun: 'controller',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Online', field: 'isOnline' },
      { header: 'Last seen', field: 'lastSeenAt' },
      { header: 'Management API', field: 'apiAddresses.edge-management.0.url' },
      { header: 'Fingerprint', field: 'fingerprint', priority: 1 },
      { header: 'Joined', field: 'lastJoinedAt', priority: 1 },
    ],
  },
};

/** `ctl controller list`: the controllers of the profile's network (GET /controllers), online or not. */
export function buildControllerList(deps: Deps, run = runList) {
  const summary = 'List the controllers of the network the profile logs in to, and whether each is online';
  return buildList(deps, CONTROLLERS, run).description(summary);
}
