/**
 * How a run of `verify` is printed: the stage, URL and temporary customer, one line per check (PASS or FAIL, its name,
 * what was wrong), and `N passed, M failed`. Check names never change, so runs can be compared.
 */
import type { Output } from '../command.js';
import type { VerifyRun } from './run.js';

export function report(run: VerifyRun): Output & { failed: boolean } {
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
