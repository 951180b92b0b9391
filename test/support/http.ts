/** An in-process local gateway on a random port, and a small fetch wrapper that returns status, headers, body. */
import { afterAll, beforeAll } from 'vitest';
import { type Gateway, startGateway } from '../../infra/local/gateway.js';
import { expectConformsToOpenApi } from './openapi-conformance.js';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export function useGateway(): { url: () => string; call: (path: string, init?: RequestInit) => Promise<HttpAnswer> } {
  let gateway: Gateway | undefined;
  beforeAll(async () => {
    gateway = await startGateway(0);
  });
  afterAll(async () => {
    await gateway?.close();
  });
  const url = () => {
    if (!gateway) throw new Error('gateway not started');
    return gateway.url;
  };
  return {
    url,
    call: async (path, init) => {
      const response = await fetch(`${url()}${path}`, init);
      const text = await response.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      const answer = { status: response.status, headers: response.headers, body, text };
      await expectConformsToOpenApi(init?.method ?? 'GET', path, answer);
      return answer;
    },
  };
}
