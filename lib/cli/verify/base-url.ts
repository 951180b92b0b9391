/** Where `verify` sends its requests: `--url`, else the stack's ApiUrl output with --aws, else the stage's local gateway. */
import { localConfig } from '../../config.js';
import { API_STAGE_NAME, API_URL_OUTPUT, type Stage } from '../../stacks.js';
import { UsageError } from '../args.js';
import type { Target } from '../targets.js';

const EXAMPLE = 'https://abc123.execute-api.eu-west-1.amazonaws.com/v1';
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** `--url` without a trailing slash; plain http only to this machine, or the temporary key crosses the network in clear. */
export function parseBaseUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url must be the API's base URL, such as ${EXAMPLE}; got "${value}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`--url must be an https URL such as ${EXAMPLE}; got "${value}"`);
  if (url.username || url.password) throw new UsageError('--url must not hold a user name or password');
  if (url.search || url.hash || value.includes('?') || value.includes('#')) {
    throw new UsageError(`--url must be the base URL alone, without a query or fragment; got "${value}"`);
  }
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) {
    throw new UsageError(
      `--url must use https for a host other than this machine, or the temporary key crosses the network in clear; got "${value}"`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

export function baseUrlOf(given: string | undefined, stage: Stage, { deployed }: Target): string {
  if (given) return given;
  if (deployed) {
    const url = deployed.outputs.get(API_URL_OUTPUT);
    if (!url) throw new Error(`stack ${deployed.stack} has no output ${API_URL_OUTPUT}: is it deployed with this version?`);
    return url.replace(/\/+$/, '');
  }
  // Read only now, after the arguments are checked: a bad variable must not hide a usage error.
  const { PORT, STAGING_PORT } = localConfig();
  return `http://127.0.0.1:${stage === 'production' ? PORT : STAGING_PORT}/${API_STAGE_NAME}`;
}
