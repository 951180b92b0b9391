/**
 * What an Idempotency-Key does, on Powertools' Idempotency utility (utility.mts, loaded on first use): the first
 * request's result is stored for 24 hours; a retry with the same body gets it with Idempotent-Replayed: true, another
 * body 422, a retry while the first runs 409. A 4xx result is remembered, a 5xx is not (the claim is released).
 */
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { tableName } from '../config.js';
import { documentClient } from '../dynamo/client.js';
import { HttpError } from '../http/error-codes.js';
import type { Result } from '../http/response.js';
import type { Quota, Route } from '../routes.js';
import { type IdempotentRequest, type IdempotentRunner, idempotencyKeyOf } from './key.js';
import { IDEMPOTENCY_KEY_HEADER, REMEMBERED_SECONDS, REPLAYED_HEADER } from './names.js';
import { idempotencyRecords, type StoredAnswer, StoredAnswerSchema } from './persistence.js';
import type { Remember } from './utility.mjs';

/** Thrown from a run whose 5xx answer must not be remembered. */
class NotRemembered extends Error {}

/** Retry-After of 409 IDEMPOTENCY_IN_PROGRESS: a create takes tens of milliseconds; a dead one's claim lapses (key.ts). */
const IN_PROGRESS_RETRY_AFTER = '1';

/** The library's refusals, by name: a key reused with another body, a key in use. */
function idempotencyRefusal(error: unknown): HttpError | undefined {
  const name = error instanceof Error ? error.name : undefined;
  if (name === 'IdempotencyValidationError') {
    return new HttpError(
      'IDEMPOTENCY_KEY_REUSED',
      `This ${IDEMPOTENCY_KEY_HEADER} was already used with a different request body; use a new key for a new request (keys are remembered for 24 hours)`,
    );
  }
  if (name === 'IdempotencyAlreadyInProgressError') {
    return new HttpError(
      'IDEMPOTENCY_IN_PROGRESS',
      `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry after the time in Retry-After to get its answer`,
      { 'Retry-After': IN_PROGRESS_RETRY_AFTER },
    );
  }
  return undefined;
}

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
        throw idempotencyRefusal(error) ?? error;
      }
      if (first.result) return first.result;
      const { replayed, ...answer } = v.parse(ReplaySchema, stored);
      return replayOf(answer, replayed === true);
    },
    { keyOf: idempotencyKeyOf },
  );
  // A failed load is reported when the runner awaits it again.
  runner.prepare = () => void utility();
  return runner;
}
