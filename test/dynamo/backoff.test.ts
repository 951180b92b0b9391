/**
 * The one retry loop (lib/dynamo/backoff.ts): how many attempts it makes, how long it waits between them (full
 * jitter below a doubling bound, never above the cap), and that an error not worth retrying is thrown at once.
 * The waits are recorded instead of slept, and Math.random is pinned to show the bounds.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fullJitter, type RetryPolicy, retrying } from '../../lib/dynamo/backoff.js';

class Retryable extends Error {}
class Fatal extends Error {}

const policy: RetryPolicy = { attempts: 8, baseMs: 5, capMs: 50, retryable: (error) => error instanceof Retryable };

/** An operation that fails with `errors` in turn, then returns its attempt number; the attempts and waits it saw. */
function scripted(errors: Error[]) {
  const attempts: number[] = [];
  const waits: number[] = [];
  const operation = async (attempt: number) => {
    attempts.push(attempt);
    const error = errors[attempts.length - 1];
    if (error) throw error;
    return attempt;
  };
  const wait = async (ms: number) => {
    waits.push(ms);
  };
  return { operation, wait, attempts, waits };
}

afterEach(() => vi.restoreAllMocks());

describe('retrying', () => {
  it('returns the first success: two failures, then the third attempt', async () => {
    const run = scripted([new Retryable(), new Retryable()]);
    await expect(retrying(run.operation, policy, run.wait)).resolves.toBe(3);
    expect(run.attempts).toEqual([1, 2, 3]);
    expect(run.waits).toHaveLength(2);
  });

  it('makes exactly `attempts` attempts, waits between them only, and throws the last error', async () => {
    const errors = Array.from({ length: 10 }, (_, i) => new Retryable(`attempt ${i + 1}`));
    const run = scripted(errors);
    await expect(retrying(run.operation, policy, run.wait)).rejects.toBe(errors[7]);
    expect(run.attempts).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(run.waits).toHaveLength(7);
  });

  it('throws an error that is not retryable at once, without waiting', async () => {
    const fatal = new Fatal();
    const run = scripted([new Retryable(), fatal]);
    await expect(retrying(run.operation, policy, run.wait)).rejects.toBe(fatal);
    expect(run.attempts).toEqual([1, 2]);
    expect(run.waits).toHaveLength(1);

    const first = scripted([fatal]);
    await expect(retrying(first.operation, policy, first.wait)).rejects.toBe(fatal);
    expect(first.attempts).toEqual([1]);
    expect(first.waits).toEqual([]);
  });

  it('waits below base × 2^(retry-1), doubling, and never above the cap', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    const run = scripted(Array.from({ length: 8 }, () => new Retryable()));
    await expect(retrying(run.operation, policy, run.wait)).rejects.toBeInstanceOf(Retryable);
    expect(run.waits.map((ms) => Math.round(ms))).toEqual([5, 10, 20, 40, 50, 50, 50]);
    expect(run.waits.every((ms, i) => ms < Math.min(50, 5 * 2 ** i))).toBe(true);
  });

  it('is full jitter: any wait from zero up to the bound', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect(fullJitter({ baseMs: 20, capMs: 3_000 }, 12)).toBe(0);
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(fullJitter({ baseMs: 20, capMs: 3_000 }, 3)).toBe(40);
    expect(fullJitter({ baseMs: 20, capMs: 3_000 }, 12)).toBe(1_500);
  });

  it('goes again at once after a first failure the policy says was corrected, and waits after later ones', async () => {
    class Stale extends Error {}
    const run = scripted([new Stale(), new Stale(), new Stale()]);
    const stalePolicy: RetryPolicy = { ...policy, retryable: () => true, firstRetryAtOnce: (error) => error instanceof Stale };
    await expect(retrying(run.operation, stalePolicy, run.wait)).resolves.toBe(4);
    expect(run.waits).toHaveLength(2);

    const conflict = scripted([new Retryable()]);
    await expect(retrying(conflict.operation, stalePolicy, conflict.wait)).resolves.toBe(2);
    expect(conflict.waits).toHaveLength(1);
  });
});
