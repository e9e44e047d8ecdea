import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { asFormat } from '../output/formats.js';
import { renderOne } from '../output/render.js';
import { clientVersion } from '../package-version.js';

export function buildVersion(deps: Deps, run = runVersion) {
  return withMeta(new Command('version'), {
    description: "Show the version of ctl and, when a controller is configured, the controller's (no login needed)",
    examples: ['ctl version', 'ctl version -o json', 'ctl version --profile prod'],
  }).action(async () => run({}, deps));
}

interface ControllerVersion {
  version?: string;
  revision?: string;
  buildDate?: string;
}

export async function runVersion(_opts: Record<string, never>, deps: Deps): Promise<void> {
  const client = { version: await clientVersion(), node: process.version };
  const anon = await (await deps.sessions()).anonymousClient();
  let controller: (ControllerVersion & { url: string }) | undefined;
  if (anon) {
    try {
      const v = await anon.get<ControllerVersion>('/edge/client/v1/version', { anonymous: true });
      controller = { url: anon.baseUrl, version: v.version, revision: v.revision, buildDate: v.buildDate };
    } catch (err) {
      // The client's version is still worth printing; the failure is a note, not the result.
      deps.io.warn(`cannot read the controller version from ${anon.baseUrl}: ${(err as Error).message}`);
    }
  }
  await renderOne(deps.io, controller ? { client, controller } : { client }, {
    format: asFormat(deps.globals().output),
  });
}
