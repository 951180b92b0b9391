/** `verify`: checks a running stage as a client; exits 0 only if every check passed; Ctrl-C stops the checks, not the clean-up. */
import { defineCommand, type Output } from '../command.js';
import { baseUrlOf, parseBaseUrl } from '../verify/base-url.js';
import { type VerifyRun, verifyStage } from '../verify/run.js';

/** One line per check, PASS or FAIL with what was wrong; check names never change, so runs can be compared. */
function report(run: VerifyRun): Output {
  const passed = run.results.filter((r) => r.passed).length;
  const failed = run.results.length - passed;
  const lines = [
    `verify ${run.stage} at ${run.baseUrl} as temporary customer ${run.customerId} (key ${run.keyId})`,
    ...run.results.map((r) => {
      const detail = r.detail ? ` [${r.detail}]` : '';
      return r.passed ? `PASS  ${r.check}${detail}` : `FAIL  ${r.check}: ${r.problems.join('; ')}${detail}`;
    }),
    `${passed} passed, ${failed} failed`,
  ];
  return { json: run.results, text: lines.join('\n'), failed: failed > 0 };
}

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
        return report(await verifyStage(stores, stage, baseUrlOf(given, stage, target), interrupt.signal));
      } finally {
        process.off('SIGINT', stop);
      }
    };
  },
});
