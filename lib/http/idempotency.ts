/**
 * What an Idempotency-Key does (the header itself: idempotency-key.ts), on Powertools for AWS Lambda's Idempotency
 * utility and its DynamoDB persistence layer, around the handler of a route that declares `idempotent`: the first
 * request with a key claims it (a conditional Put), runs, and stores its answer for 24 hours; a retry with the same
 * key and body gets that answer again with `Idempotent-Replayed: true` and runs nothing; the same key with another
 * body is 422; a retry while the first still runs is 409 with Retry-After.
 *
 * The handler file of such a route passes `idempotentRunner(route)` to `operation()`, which refuses to build the
 * chain without it; the library (about 44 KiB with its JMESPath engine) is then bundled only where it runs.
 *
 * Why `makeIdempotent` around the handler rather than the library's Middy middleware (`makeHandlerIdempotent`): the
 * middleware answers a replay with Middy's early return, which skips every `after` step, so a replay would lack
 * X-Request-Id and the rate-limit headers of this request; and it stores only what the handler returns, so an
 * answer the operation gives by throwing (409 CATEGORY_EXISTS) could not be remembered. What is written here is
 * what the library leaves to us: the header's syntax (idempotency-key.ts), scoping keys per customer, turning a
 * thrown 4xx into a stored answer, and the contract's codes for the library's errors.
 *
 * What is remembered follows the IETF draft "The Idempotency-Key HTTP Header Field": the result of the operation,
 * success or error (201, and the operation's own 4xx such as 409 CATEGORY_EXISTS). Not remembered: refusals before
 * the operation runs (401, 429, the body's 400/413/415, a bad key), since nothing was done and the client is to
 * fix the request; and 5xx, whose record is deleted so that a retry runs the operation again.
 */
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { tableName } from '../config.js';
import { dynamoClient } from '../dynamo/client.js';
import type { Route } from '../routes.js';
import { HttpError } from './errors.js';
import { errorAnswer, toHttpError } from './http-errors.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  type IdempotentRequest,
  type IdempotentRunner,
  IN_PROGRESS_RETRY_AFTER,
  REMEMBERED_SECONDS,
  REPLAYED_HEADER,
} from './idempotency-key.js';
import type { ApiResult } from './response.js';

/** What is remembered of an answer: the handler's own part; the chain adds this request's headers to a replay. */
const StoredAnswerSchema = v.object({
  statusCode: v.number(),
  headers: v.record(v.string(), v.string()),
  body: v.string(),
  replayed: v.optional(v.literal(true)),
});
type StoredAnswer = v.InferOutput<typeof StoredAnswerSchema>;

/**
 * Runs the handler of `route` idempotently, with records in the idempotency table (IDEMPOTENCY_TABLE). Record keys
 * start with the operation id instead of the library's default, the Lambda function's name, which a redeploy can
 * change.
 */
export function idempotentRunner(route: Route): IdempotentRunner {
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: tableName('IDEMPOTENCY_TABLE'), awsSdkV3Client: dynamoClient() });
  const config = new IdempotencyConfig({
    // The key: customer and Idempotency-Key together, so two customers' equal keys are two records.
    eventKeyJmesPath: '[customerId, key]',
    // The fingerprint: a retry must come with the same body, else 422.
    payloadValidationJmesPath: 'body',
    hashFunction: 'sha256',
    expiresAfterSeconds: REMEMBERED_SECONDS,
    // Called on a replay only, which is how the answer learns it is one.
    responseHook: (response) =>
      typeof response === 'object' && response !== null && !Array.isArray(response) ? { ...response, replayed: true } : response,
  });

  // The Lambda context in the second argument is how the library reads the time left: a claim lapses when the
  // invocation that made it would have been cut off, so a request that died never blocks its key for longer.
  const remembered = makeIdempotent(
    async (_request: IdempotentRequest, context: Context, run: () => Promise<ApiResult>): Promise<StoredAnswer> => {
      try {
        const { statusCode, headers, body } = await run();
        return { statusCode, headers, body };
      } catch (error) {
        const refusal = toHttpError(error, context.awsRequestId);
        // A 4xx is the operation's result and is remembered; a 5xx is thrown, the claim deleted, a retry runs again.
        if (refusal.status >= 500) throw refusal;
        const { statusCode, headers, body } = errorAnswer(refusal);
        return { statusCode, headers, body };
      }
    },
    { persistenceStore, config, keyPrefix: route.operationId },
  );

  return async (request, context, run) => {
    let stored: unknown;
    try {
      stored = await remembered(request, context, run);
    } catch (error) {
      if (error instanceof IdempotencyValidationError) {
        throw new HttpError(
          'IDEMPOTENCY_KEY_REUSED',
          `This ${IDEMPOTENCY_KEY_HEADER} was already used with a different request body; use a new key for a new request (keys are remembered for 24 hours)`,
        );
      }
      if (error instanceof IdempotencyAlreadyInProgressError) {
        throw new HttpError(
          'IDEMPOTENCY_IN_PROGRESS',
          `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry after the time in Retry-After to get its answer`,
          { 'Retry-After': IN_PROGRESS_RETRY_AFTER },
        );
      }
      throw error;
    }
    const { replayed, ...answer } = v.parse(StoredAnswerSchema, stored);
    return replayed ? { ...answer, headers: { ...answer.headers, [REPLAYED_HEADER]: 'true' } } : answer;
  };
}
