/**
 * Retrying with jittered backoff: the one formula every retry of the project waits by, and the loop for what the
 * SDK does not retry itself. The SDK retries throttling and transient errors (retry-strategy.ts, which waits by
 * `fullJitter` too); it does not retry a transaction cancelled by a condition or a conflict, a plain write refused
 * because a transaction holds the item, or BatchGetItem's unprocessed keys, which are an answer, not an error.
 * Those loops call `retrying`, each with its own constants, kept beside it with why.
 */

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
  /**
   * A first attempt that failed so goes again without waiting: its error told the caller what to change (a stale
   * guess, corrected from the error), rather than that others are racing. Later retries wait all the same.
   */
  firstRetryAtOnce?: (error: unknown) => boolean;
}

/** The wait before retry `retry` (from 1): random below min(cap, base × 2^(retry-1)). */
/**
 * The wait before retry r (r = 1 before the second attempt) is random below min(capMs, baseMs × 2^(r-1)): "full
 * jitter", which spreads retriers that failed together best (AWS Architecture Blog, "Exponential Backoff And
 * Jitter"), and the SDK's own formula.
 */
export function fullJitter(backoff: Backoff, retry: number): number {
  return Math.random() * Math.min(backoff.capMs, backoff.baseMs * 2 ** (retry - 1));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `operation` (given the attempt's number, from 1) until it succeeds, fails with an error that is not
 * retryable, or has been tried `policy.attempts` times; the error it ends with is thrown as it is. `wait` is for
 * tests.
 */
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
