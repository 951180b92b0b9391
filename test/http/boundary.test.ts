/**
 * The HTTP boundary: an unexpected error becomes 500 INTERNAL_ERROR in the Error shape, with the request id and
 * the rate-limit headers, and nothing of the error itself (message, stack, table names) reaches the client.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { lambdaContext } from '../../infra/local/events.js';
import { operation } from '../../lib/http/operation.js';
import { listStoreOrders } from '../../lib/routes.js';
import { invoke, proxyEvent } from '../support/events.js';
import { captureLogs } from '../support/logs.js';

describe('unexpected errors', () => {
  it('become 500 INTERNAL_ERROR without leaking internals, and are logged with the request id', async () => {
    const { lines, stop } = captureLogs();
    onTestFinished(stop);
    const failing = operation(listStoreOrders, async () => {
      throw new TypeError(`Cannot read properties of undefined (table ${process.env.COUNTERS_TABLE})`);
    });
    const event = proxyEvent({ path: '/store/orders' });
    const answer = await invoke(failing, event);
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ code: 'INTERNAL_ERROR', message: expect.stringContaining(event.requestContext.requestId), status: 500 });
    expect(JSON.stringify(answer.body)).not.toMatch(/TypeError|undefined|table|at /);
    expect(answer.headers.get('X-Request-Id')).toBe(event.requestContext.requestId);
    expect(answer.headers.get('X-RateLimit-Limit')).not.toBeNull();
    expect(
      lines.some((l) => l.includes('"unhandled error"') && l.includes(event.requestContext.requestId) && l.includes('TypeError')),
    ).toBe(true);
  });
});

describe('a handler that runs into its Lambda timeout', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After before Lambda would cut it off, not nothing', async () => {
    const slow = operation(listStoreOrders, () => new Promise(() => undefined));
    const event = proxyEvent({ path: '/store/orders' });
    // 700 ms left: Middy gives up 500 ms before the deadline, so the error step answers with time to spare
    // (Middy's default gives up 5 ms before it, too late for an answer to leave a frozen-then-killed Lambda).
    const context = lambdaContext('slow', event.requestContext.requestId, 700);
    const result = await slow(event, context);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(100);
    expect(result?.statusCode).toBe(503);
    expect(JSON.parse(result?.body ?? '{}')).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(result?.headers['Retry-After']).toBe('2');
    expect(result?.headers['X-Request-Id']).toBe(event.requestContext.requestId);
  });
});
