/**
 * A handler file that disagrees with its route does not compile: `npm test` runs tsc over this file, and each
 * `@ts-expect-error` below fails that run if its line ever compiles. The route decides (lib/routes.ts); `operation()`
 * takes, for an idempotent route, a definition with its runner, and for any other route no runner; a handler returns
 * its route's success body, reads the body its route's schema gives, and the usage of a peek route only.
 */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../lib/http/error-codes.js';
import { jsonBody } from '../../lib/http/json-body.js';
import { operation } from '../../lib/http/operation.js';
import { idempotentRunner } from '../../lib/idempotency/runner.js';
import { createCategory, getPetById, getRateLimitStatus, listCategories } from '../../lib/routes.js';

/** Never called: these lines are here for the compiler. */
function disagreements() {
  // @ts-expect-error an idempotent route's handler file must hand over the runner
  operation(createCategory, { handle: async ({ body }) => ({ id: 1, name: body.name }) });
  // @ts-expect-error an idempotent route takes a definition, not a handler alone
  operation(createCategory, async ({ body }) => ({ id: 1, name: body.name }));
  // @ts-expect-error a route that is not idempotent must not be given a runner
  operation(listCategories, { handle: async () => [], idempotency: idempotentRunner(createCategory) });
  // @ts-expect-error a runner is only made for an idempotent route
  idempotentRunner(listCategories);
  // @ts-expect-error a handler returns its route's success body
  operation(listCategories, async () => 'all of them');
  // @ts-expect-error a route without a success answer only refuses
  operation(getPetById, async () => ({ id: 1 }));
  // @ts-expect-error only a peek route's handler is given the usage it read
  operation(listCategories, async ({ usage }) => (usage ? [] : []));
  operation(createCategory, {
    // @ts-expect-error the body is what the route's schema gives: a NewCategory has no colour
    handle: async ({ body }) => ({ id: 1, name: body.colour }),
    idempotency: idempotentRunner(createCategory),
  });
}

describe('operation() and the route it is given', () => {
  it('builds the handler of a definition that agrees with its route', () => {
    const agreeing = [
      operation(createCategory, {
        handle: async ({ body }) => ({ id: 1, name: body.name }),
        idempotency: idempotentRunner(createCategory),
        readBody: jsonBody,
      }),
      operation(listCategories, async () => []),
      operation(getRateLimitStatus, async ({ caller, usage }) => ({
        customerId: caller.customerId,
        plan: caller.plan,
        minute: { limit: 1, remaining: 1, reset: 0 },
        day: { limit: 1, remaining: 1, reset: 0 },
        ban: { active: usage.banUntil !== null, until: usage.banUntil },
      })),
      operation(getPetById, async () => {
        throw new HttpError('NOT_IMPLEMENTED', 'not yet');
      }),
    ];
    for (const handler of agreeing) expect(handler).toBeTypeOf('function');
    expect(disagreements).toBeTypeOf('function');
  });

  it('refuses, at load, a route with a body whose handler file gives no step to read it', () => {
    expect(() =>
      operation(createCategory, {
        handle: async ({ body }) => ({ id: 1, name: body.name }),
        idempotency: idempotentRunner(createCategory),
      }),
    ).toThrow('createCategory takes a body: its handler file gives readBody');
  });
});
