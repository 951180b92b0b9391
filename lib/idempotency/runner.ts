/**
 * What an Idempotency-Key does (the header itself: idempotency-key.ts), around the operation of a route that
 * declares `idempotent`: the first request with a key claims it (a conditional Put), runs, and stores its result for
 * 24 hours; a retry with the same key and body gets that result again with `Idempotent-Replayed: true` and runs
 * nothing; the same key with another body is 422; a retry while the first still runs is 409 with Retry-After. Built
 * on Powertools for AWS Lambda's Idempotency utility (idempotency-utility.mts).
 *
 * The handler file of such a route passes `idempotentRunner(route)` to `operation()`, which requires it by type; only
 * that function carries the library, in a file of its own beside its bundle (idempotency-utility.mts), loaded by the
 * instance's first request with a key. That request starts the load as soon as its key is read, while its count is
 * in flight (`prepare`), and pays for reading and evaluating the library once per instance (a few milliseconds); no
 * request without a key, cold or not, reads it.
 *
 * Why `makeIdempotent` around the operation rather than the library's Middy middleware (`makeHandlerIdempotent`):
 * the middleware answers a replay with Middy's early return, around the request path, so a replay would lack this
 * request's X-Request-Id and rate-limit headers; and it stores only what the handler returns, so a result the
 * operation gives by throwing (409 CATEGORY_EXISTS) could not be remembered. What is written here is what the
 * library leaves to us: scoping keys per customer, and a result in the form it stores.
 *
 * What is remembered follows the IETF draft "The Idempotency-Key HTTP Header Field": the result of the operation,
 * success or error (201, and the operation's own 4xx such as 409 CATEGORY_EXISTS; pipeline.ts makes both results).
 * Not remembered: refusals before the operation runs (401, 429, the body's 400/413/415, a bad key), since nothing was
 * done and the client is to fix the request; and 5xx, whose record is deleted so that a retry runs the operation
 * again.
 */
import * as v from 'valibot';
import { tableName } from '../config.js';
import { documentClient } from '../dynamo/client.js';
import type { Result } from '../http/response.js';
import type { Quota, Route } from '../routes.js';
import type { IdempotentRunner } from './key.js';
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

  const runner: IdempotentRunner = async (request, context, run) => {
    const remember = await utility();
    // The first request's result as the operation gave it, without a trip through its stored form.
    const first: { result?: Result } = {};
    let stored: unknown;
    try {
      stored = await remember(request, context, async () => {
        first.result = await run();
        // A 5xx is not remembered: the utility deletes the record of a run that throws, so a retry runs again.
        if (first.result.status >= 500) throw new NotRemembered();
        return storedOf(first.result);
      });
    } catch (error) {
      if (error instanceof NotRemembered && first.result) return first.result;
      throw error;
    }
    if (first.result) return first.result;
    const { replayed, ...answer } = v.parse(ReplaySchema, stored);
    return replayOf(answer, replayed === true);
  };
  // The request path starts the load as soon as it has read a key, while the count is in flight (pipeline.ts); a
  // failed load is the runner's to report, when it awaits the load again.
  runner.prepare = () => void utility();
  return runner;
}
