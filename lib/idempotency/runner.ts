/**
 * What an Idempotency-Key does around an idempotent route's operation, on Powertools' Idempotency utility
 * (utility.mts, loaded by an instance's first keyed request): the first request claims the key and its result is
 * stored for 24 hours; a retry with the same body gets it again with Idempotent-Replayed: true; another body is 422;
 * a retry while the first runs is 409. A 4xx result is remembered, a 5xx is not (the claim is released).
 */

import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { tableName } from '../config.js';
import { documentClient } from '../dynamo/client.js';
import type { Result } from '../http/response.js';
import type { Quota, Route } from '../routes.js';
import { type IdempotentRequest, type IdempotentRunner, idempotencyKeyOf } from './key.js';
import { REMEMBERED_SECONDS, REPLAYED_HEADER } from './names.js';
import { idempotencyRecords, type StoredAnswer, StoredAnswerSchema } from './records.js';
import type { Remember } from './utility.mjs';

/** Thrown from a run whose 5xx answer must not be remembered. */
class NotRemembered extends Error {}

/** A stored answer as the utility hands back a replay. */
const ReplaySchema = v.object({ ...StoredAnswerSchema.entries, replayed: v.optional(v.literal(true)) });

/** A result as it is stored: the answer's own part, in the form records have had since the first deploy. */
function storedOf({ status, body, headers }: Result): StoredAnswer {
  return { statusCode: status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** A stored answer as a result again. finish.ts writes the same bytes: JSON.stringify of what it parsed from them. */
function replayOf({ statusCode, headers: { 'Content-Type': _json, ...own }, body }: StoredAnswer, replayed: boolean): Result {
  return { status: statusCode, body: JSON.parse(body), headers: replayed ? { ...own, [REPLAYED_HEADER]: 'true' } : own };
}

/** Runs the operation of `route` idempotently, with records in the idempotency table (IDEMPOTENCY_TABLE). */
export function idempotentRunner<TQuota extends Quota, TBody, TSuccess>(route: Route<TQuota, TBody, true, TSuccess>): IdempotentRunner {
  const records = idempotencyRecords(documentClient(), tableName('IDEMPOTENCY_TABLE'));
  let loading: Promise<Remember> | undefined;
  const utility = () => {
    loading ??= import('./utility.mjs').then(({ rememberer }) => rememberer(records, route.operationId, REMEMBERED_SECONDS));
    // A failed load is tried again by the next request rather than remembered.
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };

  const runner: IdempotentRunner = Object.assign(
    async (request: IdempotentRequest, context: Context, run: () => Promise<Result>): Promise<Result> => {
      const remember = await utility();
      // The first request's result as the operation gave it, without a trip through its stored form.
      const first: { result?: Result } = {};
      let stored: unknown;
      try {
        stored = await remember(request, context, async () => {
          const result = await run();
          first.result = result;
          // A 5xx is not remembered: the utility deletes the record of a run that throws, so a retry runs again.
          if (result.status >= 500) throw new NotRemembered();
          return storedOf(result);
        });
      } catch (error) {
        if (error instanceof NotRemembered && first.result) return first.result;
        throw error;
      }
      if (first.result) return first.result;
      const { replayed, ...answer } = v.parse(ReplaySchema, stored);
      return replayOf(answer, replayed === true);
    },
    { keyOf: idempotencyKeyOf },
  );
  // The request path starts the load as soon as it has read a key, while the count is in flight (pipeline.ts); a
  // failed load is the runner's to report, when it awaits the load again.
  runner.prepare = () => void utility();
  return runner;
}
