/** One run of `verify`: the temporary customer, the checks in a client session's order, and its retirement whatever happened. */
import { nowMs } from '../../clock.js';
import type { Stage } from '../../stacks.js';
import type { Stores } from '../stores.js';
import { type Check, type CheckResult, runCheck, type VerifyContext } from './check.js';
import { sender } from './http.js';
import { listCategories, minuteUsedUp, rateLimitStatus } from './quota-checks.js';
import { badBody, badKey, create, deprecatedOperations, missingKey, replay, unknownPath } from './request-checks.js';
import { createTemporaryCustomer, retire, runName } from './temporary-customer.js';

// Quota: those that spend a request or two first, then the one that uses up the minute, then GET /rate-limit (must answer).
export const CHECKS: readonly Check[] = [
  missingKey,
  badKey,
  listCategories,
  create,
  replay,
  badBody,
  unknownPath,
  ...deprecatedOperations,
  minuteUsedUp,
  rateLimitStatus,
];

export async function verifyStage(
  stores: Pick<Stores, 'auth' | 'audit' | 'categories' | 'gateway'>,
  stage: Stage,
  baseUrl: string,
  signal: AbortSignal,
) {
  const started = new Date(nowMs());
  const name = runName(started);
  const customer = await createTemporaryCustomer(stores, name, stage, started);
  // Once a request gets no answer (nothing listens, the network is down), the checks left are not run.
  let unanswered = false;
  const send = sender(baseUrl, signal);
  const context: VerifyContext = {
    send: (path, request) =>
      send(path, request).catch((error: unknown) => {
        unanswered = true;
        throw error;
      }),
    stage,
    apiKey: customer.apiKey,
    customerId: customer.customerId,
    limits: customer.limits,
    runName: name,
    created: [],
  };
  const results: CheckResult[] = [];
  try {
    for (const check of CHECKS) {
      const skipped = signal.aborted ? 'interrupted' : unanswered ? 'the API did not answer' : undefined;
      results.push(
        skipped
          ? { check: check.name, passed: false, problems: [`not run: ${skipped}`] }
          : await runCheck({ name: check.name, run: () => check.run(context) }),
      );
    }
  } finally {
    results.push(...(await retire(stores, customer, context.created)));
  }
  return { stage, baseUrl, customerId: customer.customerId, keyId: customer.keyId, results, categories: context.created };
}

export type VerifyRun = Awaited<ReturnType<typeof verifyStage>>;
