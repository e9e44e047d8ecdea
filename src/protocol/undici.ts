import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { commonJs } from './commonjs.js';

type AgentClass = typeof Undici.Agent;
type RequestOptions = { dispatcher: Dispatcher } & Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
    method?: Dispatcher.HttpMethod;
  };
export type Send = (url: URL, opts: RequestOptions) => Promise<Dispatcher.ResponseData>;

/**
 * The two pieces of undici that key-set fetches use (the controller's, and `ctl signer test`'s): the Agent and request.
 * undici's index also builds fetch, WebSocket, caches and mocks, which cost about three times as much to load. These
 * modules are undici 7's own building blocks (the version is pinned in package.json). The CLI uses node:https instead
 * (client/transport.ts).
 */
export async function loadUndici(): Promise<{ Agent: AgentClass; request: Send }> {
  const [agent, api] = await Promise.all([
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/api/api-request.js'),
  ]);
  const apiRequest = commonJs(api);
  // What undici's top-level request() does: split the URL into origin and path, then call the API on the dispatcher.
  const request: Send = ({ origin, pathname, search }, { dispatcher, ...opts }) =>
    apiRequest.call(dispatcher, { ...opts, origin, path: pathname + search, method: opts.method ?? 'GET' });
  return { Agent: commonJs(agent), request };
}
