/** `verify`: checks a running stage as a client; exits 0 only if every check passed; Ctrl-C stops the checks, not the clean-up. */
import { defineCommand } from '../command.js';
import { baseUrlOf, parseBaseUrl } from '../verify/base-url.js';
import { report } from '../verify/report.js';
import { verifyStage } from '../verify/run.js';

export const verify = defineCommand({
  name: 'verify',
  synopsis: '--stage production|staging [--url <base URL>]',
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
