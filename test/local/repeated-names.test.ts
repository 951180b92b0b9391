/**
 * A request's repeated query or header names cost work in proportion to their number: `?a&a&a…` 16,000 times does
 * 8 times the work of 2,000, not 64 times. Work is counted, not timed: every element read through an array iterator
 * (spreads, destructuring, for…of over arrays), which is how copying a growing list of values again for each repeat
 * shows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { proxyEvent } from '../../infra/local/events.js';

const arrayIterator = Object.getOwnPropertyDescriptor(Array.prototype, Symbol.iterator);
let steps = 0;

/** Counts every step of every array iterator while `run` runs. */
function countSteps(run: () => void): number {
  const original = Array.prototype[Symbol.iterator];
  Object.defineProperty(Array.prototype, Symbol.iterator, {
    configurable: true,
    writable: true,
    value: function counted(this: unknown[]) {
      const iterator = original.call(this);
      return {
        next: () => {
          steps++;
          return iterator.next();
        },
        [Symbol.iterator]() {
          return this;
        },
      };
    },
  });
  steps = 0;
  try {
    run();
  } finally {
    if (arrayIterator) Object.defineProperty(Array.prototype, Symbol.iterator, arrayIterator);
  }
  return steps;
}

afterEach(() => {
  if (arrayIterator) Object.defineProperty(Array.prototype, Symbol.iterator, arrayIterator);
});

const repeats = (count: number): [string, string][] => Array.from({ length: count }, (): [string, string] => ['a', '']);

describe('repeated names cost linear work', () => {
  it('query names: 16,000 repeats cost at most 10 times the work of 2,000 (linear is 8, quadratic 64)', () => {
    const small = countSteps(() => proxyEvent({ query: repeats(2_000) }));
    const large = countSteps(() => proxyEvent({ query: repeats(16_000) }));
    expect(small).toBeGreaterThan(0);
    expect(large / small).toBeLessThanOrEqual(10);
    const event = proxyEvent({ query: repeats(16_000) });
    expect(event.multiValueQueryStringParameters?.a).toHaveLength(16_000);
    expect(event.queryStringParameters).toEqual({ a: '' });
  });

  it('header names, in any letter case: the same', () => {
    const headers = (count: number) => repeats(count).map(([, v], i): [string, string] => [i % 2 ? 'X-A' : 'x-a', v]);
    const small = countSteps(() => proxyEvent({ headers: headers(2_000) }));
    const large = countSteps(() => proxyEvent({ headers: headers(16_000) }));
    expect(large / small).toBeLessThanOrEqual(10);
    expect(proxyEvent({ headers: headers(16_000) }).multiValueHeaders['x-a']).toHaveLength(16_000);
  });
});
