/**
 * Retrying with jittered backoff: the one formula every retry waits by; the SDK's standard strategy with its waits
 * capped by the budget (`budgetRetryStrategy`); and `retrying`, the loop for what the SDK does not retry: a
 * transaction cancelled by a condition or a conflict, a write refused while a transaction holds the item,
 * BatchGetItem's unprocessed keys. Each such loop keeps its own constants beside it, with why. `isDynamoUnavailable`:
 * which failures mean "try again later" (503 with Retry-After), not a bug (500), once the SDK has retried them.
 */
import { StandardRetryStrategy } from '@smithy/core/retry';
import type { RetryErrorInfo, StandardRetryBackoffStrategy, StandardRetryToken } from '@smithy/types';
import * as v from 'valibot';
import type { DynamoBudget } from './budget.js';

export interface Backoff {
  /** The bound of the first wait; each retry doubles it. */
  baseMs: number;
  /** The bound no wait exceeds. */
  capMs: number;
}

export interface RetryPolicy extends Backoff {
  /** Attempts in all, the first one included. */
  attempts: number;
  /** Whether an error is worth another attempt; any other error is thrown at once, as is the last attempt's. */
  retryable: (error: unknown) => boolean;
  /** A first attempt that failed so goes again at once: its error corrected a stale guess rather than told of a race. */
  firstRetryAtOnce?: (error: unknown) => boolean;
}

/**
 * The wait before retry r (from 1), random below min(capMs, baseMs × 2^(r-1)): "full jitter", which spreads
 * retriers that failed together best (AWS Architecture Blog, "Exponential Backoff And Jitter"); the SDK's formula.
 */
export function fullJitter(backoff: Backoff, retry: number): number {
  return Math.random() * Math.min(backoff.capMs, backoff.baseMs * 2 ** (retry - 1));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `operation` (given the attempt, from 1) until it succeeds, fails not retryably, or has used `policy.attempts`. */
export async function retrying<T>(
  operation: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  wait: (ms: number) => Promise<void> = sleep,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= policy.attempts || !policy.retryable(error)) throw error;
      if (attempt === 1 && policy.firstRetryAtOnce?.(error)) continue;
      await wait(fullJitter(policy, attempt));
    }
  }
}

/** Full jitter below min(base × 2^retries, cap): the SDK's own formula (fullJitter above), with our cap instead of 20 s. */
class CappedBackoff implements StandardRetryBackoffStrategy {
  private base = 0;

  constructor(private readonly capMs: number) {}

  setDelayBase(delayBase: number): void {
    this.base = delayBase;
  }

  computeNextBackoffDelay(retries: number): number {
    // The SDK counts the retries made so far (0 before the first); fullJitter counts the retry about to be made.
    return Math.floor(fullJitter({ baseMs: this.base, capMs: this.capMs }, retries + 1));
  }
}

class BudgetRetryStrategy extends StandardRetryStrategy {
  override async refreshRetryTokenForRetry(token: StandardRetryToken, errorInfo: RetryErrorInfo): Promise<StandardRetryToken> {
    const { retryAfterHint: _ignored, ...withoutHint } = errorInfo;
    return super.refreshRetryTokenForRetry(token, withoutHint);
  }
}

/**
 * Left alone, the SDK waits up to 20 s, and follows a Retry-After hint up to 5 s longer (@smithy/core,
 * StandardRetryStrategy.js): neither fits a Lambda budget, so the backoff is capped and the hint ignored.
 */
export function budgetRetryStrategy(budget: DynamoBudget): StandardRetryStrategy {
  return new BudgetRetryStrategy({ maxAttempts: budget.attempts, backoff: new CappedBackoff(budget.maxBackoffMs) });
}

const RETRYABLE_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
  'TimeoutError',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** What SDK and network errors carry that tells a passing outage apart; anything else is not one. */
const FailureSchema = v.looseObject({
  name: v.optional(v.unknown()),
  code: v.optional(v.unknown()),
  $metadata: v.optional(v.looseObject({ httpStatusCode: v.optional(v.unknown()) })),
  cause: v.optional(v.unknown()),
  errors: v.optional(v.unknown()),
});

export function isDynamoUnavailable(error: unknown): boolean {
  const parsed = v.safeParse(FailureSchema, error);
  if (!parsed.success) return false;
  const e = parsed.output;
  if (typeof e.name === 'string' && RETRYABLE_NAMES.has(e.name)) return true;
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  if (typeof e.$metadata?.httpStatusCode === 'number' && e.$metadata.httpStatusCode >= 500) return true;
  if (e.cause !== undefined && isDynamoUnavailable(e.cause)) return true;
  return Array.isArray(e.errors) && e.errors.some(isDynamoUnavailable);
}

/** Seconds a client should wait after a 503. */
export const UNAVAILABLE_RETRY_AFTER = '2';
