/**
 * A revoked key under an authorizer cache TTL, as API Gateway caches the authorizer's answer: within the TTL the
 * cached Allow still admits the key (documented: revocation takes effect within the TTL), and after the TTL the
 * key never works again. The local gateway reads AUTHORIZER_CACHE_TTL when its authorizer module loads, so it is
 * set here before the gateway is imported.
 */
import { describe, expect, it } from 'vitest';
import { sleep } from '../support/sleep.js';

const TTL_SECONDS = 3;
process.env.AUTHORIZER_CACHE_TTL = String(TTL_SECONDS);
const { useGateway } = await import('../support/http.js');
const { makeCustomer, testAuthStore } = await import('../support/customers.js');

const { call } = useGateway();

describe(`revocation under an authorizer cache TTL of ${TTL_SECONDS} s`, () => {
  it('the cached answer admits the revoked key within the TTL; after it the key is refused every time', async () => {
    const customer = await makeCustomer('enterprise');
    const firstSent = performance.now();
    const first = await call('/categories', { key: customer.apiKey });
    const cachedAt = performance.now();
    expect(first.status).toBe(200);

    await testAuthStore.revokeKey(customer.keyId);
    // Same Authorization header, so the same cache entry: API Gateway would also still admit it. The entry was made
    // after `firstSent`, so an answer before firstSent + TTL came from it; later (a machine so loaded that the revoke
    // took seconds), the entry may have expired.
    const withinTtl = await call('/categories', { key: customer.apiKey });
    if (performance.now() < firstSent + TTL_SECONDS * 1000) expect(withinTtl.status).toBe(200);
    else expect([200, 401]).toContain(withinTtl.status);
    // Another header value is another cache entry and is checked afresh: refused at once.
    const otherSpelling = await call('/categories', { headers: { Authorization: `bearer ${customer.apiKey}` } });
    expect(otherSpelling.status).toBe(401);

    await sleep(Math.max(0, cachedAt + TTL_SECONDS * 1000 + 100 - performance.now()));
    const afterTtl = [];
    for (let i = 0; i < 10; i++) {
      afterTtl.push(await call('/categories', { key: customer.apiKey }));
      await sleep(100);
    }
    for (const answer of afterTtl) {
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/revoked/) });
    }
    // The refusal is cached too, for another TTL, and stays a refusal after it.
    await sleep(TTL_SECONDS * 1000 + 100);
    expect((await call('/categories', { key: customer.apiKey })).status).toBe(401);
  });
});
