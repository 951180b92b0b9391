/** When the counter table cannot be reached, a request fails with 503 and Retry-After: never let through, never a crash. */
import { describe, expect, it } from 'vitest';
import { invoke, proxyEvent } from '../support/events.js';

// Nothing listens on port 9 (discard): every DynamoDB call of this file's functions fails to connect.
process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9';

/** Imported once the endpoint above is set, which their clients read when they are built. */
const FUNCTIONS = {
  'list-categories': () => import('../../functions/list-categories.js'),
  'create-category': () => import('../../functions/create-category.js'),
  'get-rate-limit-status': () => import('../../functions/get-rate-limit-status.js'),
};

describe('DynamoDB unreachable', () => {
  it.each(['list-categories', 'create-category', 'get-rate-limit-status'] as const)(
    '%s answers 503 SERVICE_UNAVAILABLE with Retry-After',
    async (name) => {
      const { handler } = await FUNCTIONS[name]();
      const answer = await invoke(
        handler,
        proxyEvent({
          method: name === 'create-category' ? 'POST' : 'GET',
          body: '{"name":"Dog"}',
          headers: { 'Content-Type': 'application/json' },
        }),
      );
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String), status: 503 });
      expect(Number(answer.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|table/i);
    },
  );
});
