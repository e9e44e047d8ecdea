import { UsageError } from '../console/errors.js';

// An API path typed as part of the URL (as `ziti edge login` users often do) names the controller, not a prefix.
const API_SUFFIX = /\/edge\/(?:management|client)\/v1\/?$/;
const HOST = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$/i;

/**
 * The canonical base URL of a controller from what a user typed: `ctrl:1280`, `https://ctrl:1280/`,
 * `https://ctrl:1280/edge/management/v1` all give `https://ctrl:1280`. A remaining path is kept as a prefix
 * (a controller behind a reverse proxy). HTTPS only: the session token must never cross the network in clear.
 */
export function normalizeControllerUrl(input: string): string {
  const text = input.trim();
  if (text === '') throw new UsageError('the controller URL is empty');
  const invalid = () =>
    new UsageError(`'${input}' is not a valid controller URL`, ['example: ctl login ctrl.example.com:1280 -u admin']);
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw invalid();
  }
  // The URL parser takes `ht!tp://bad url` as host `ht!tp` with a path: a host name is letters, digits, dots and
  // dashes (or a bracketed IPv6 address), so anything else was a typo, not a controller to try to reach.
  if (!HOST.test(url.hostname) || /\s/.test(text)) throw invalid();
  if (url.protocol !== 'https:') {
    throw new UsageError(`'${input}' is not an https URL: ctl talks to controllers over HTTPS only`);
  }
  if (url.username || url.password) {
    throw new UsageError('the controller URL must not contain credentials', [
      'pass the user with -u and the password with --password-stdin',
    ]);
  }
  const prefix = url.pathname.replace(API_SUFFIX, '').replace(/\/+$/, '');
  return url.origin + prefix;
}

/**
 * The controllers of one network from a comma-separated list (`ctl login a:1280,b:1280`, CTL_CONTROLLER), each
 * normalised as above, in the order given, each once.
 */
export function normalizeControllerUrls(input: string): string[] {
  return [...new Set(input.split(',').map(normalizeControllerUrl))];
}
