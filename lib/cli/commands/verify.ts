/**
 * `verify`: checks a running stage from outside, as a client, with a temporary customer and key retired after the run
 * (lib/cli/verify/); exits 0 only when every check passed. Ctrl-C stops the checks, not the clean-up.
 */
import { defineCommand } from '../command.js';
import { baseUrlOf, parseBaseUrl } from '../verify/base-url.js';
import { report } from '../verify/report.js';
import { verifyStage } from '../verify/run.js';

export const verify = defineCommand({
  name: 'verify',
  synopsis: '--stage production|staging [--url <base URL>]',
  positionals: [0, 0],
  writes: true,
  flags: { url: 'string' },
  prepare({ flags, stage }) {
    const given = parseBaseUrl(flags.url);
    return async (stores, target) => {
      const interrupt = new AbortController();
      const stop = () => interrupt.abort();
      process.once('SIGINT', stop);
      try {
        return report(await verifyStage(stores, stage, await baseUrlOf(given, stage, target), interrupt.signal));
      } finally {
        process.off('SIGINT', stop);
      }
    };
  },
});
