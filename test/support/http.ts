/** An in-process local gateway on a random port, and a small fetch wrapper that returns status, headers, body. */
import { afterAll, beforeAll } from 'vitest';
import { type Gateway, startGateway } from '../../infra/local/gateway.js';
import type { Answer } from './answer.js';
import { send } from './contract-answer.js';
import { makeCustomer, type TestCustomer } from './customers.js';
import { expectConformsToOpenApi } from './openapi-conformance.js';

export type { Answer } from './answer.js';

export interface GatewayHandle {
  url: () => string;
  /** The default customer (Enterprise, limits never reached) whose key `call` sends unless told otherwise. */
  customer: () => TestCustomer;
  /** A request below /v1; sends the default customer's key unless `init.headers` sets Authorization (or null). */
  call: (path: string, init?: RequestInit & { key?: string | null }) => Promise<Answer>;
}

export function useGateway(): GatewayHandle {
  let gateway: Gateway | undefined;
  let defaultCustomer: TestCustomer | undefined;
  beforeAll(async () => {
    gateway = await startGateway(0);
    defaultCustomer = await makeCustomer();
  });
  afterAll(async () => {
    await gateway?.close();
  });
  const url = () => {
    if (!gateway) throw new Error('gateway not started');
    return gateway.url;
  };
  const customer = () => {
    if (!defaultCustomer) throw new Error('gateway not started');
    return defaultCustomer;
  };
  return {
    url,
    customer,
    call: async (path, init = {}) => {
      const { key, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key !== null && !headers.has('authorization')) headers.set('Authorization', `Bearer ${key ?? customer().apiKey}`);
      const answer = await send(`${url()}${path}`, { ...rest, headers });
      await expectConformsToOpenApi(init?.method ?? 'GET', path, answer);
      return answer;
    },
  };
}
