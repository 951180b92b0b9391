/**
 * The local gateway of the tree given as argument with every function answering at once with a fixed 200 (no
 * handler, no DynamoDB call but the authorizer's): what the gateway's own layers cost per request, for
 * load-compare.ts's LOAD_STUB=1. `PORT=<port> npx tsx test/bench/gateway-stub-server.ts <tree>`; with `bare` for the
 * tree, a node:http server sending the same answer with no gateway at all, the baseline of those layers.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { resolve } from 'node:path';

const bare = process.argv[2] === 'bare';
const { handleRequest } = bare ? { handleRequest: undefined } : await import(`${resolve(process.argv[2] ?? '.')}/infra/local/gateway.ts`);
const headers = {
  'X-RateLimit-Limit': '30000',
  'X-RateLimit-Remaining': '29999',
  'X-RateLimit-Reset': '1764190860',
  'Content-Type': 'application/json',
  'RateLimit-Policy': '"minute";q=30000;w=60, "day";q=1000000000;w=86400',
  RateLimit: '"minute";r=29999;t=40, "day";r=999999999;t=40000',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};
const body = JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ id: i + 1, name: `Category ${i + 1}` })));
const functions = {
  invoke: async (_route: unknown, event: { requestContext: { requestId: string } }) => ({
    result: { statusCode: 200, headers: { ...headers, 'X-Request-Id': event.requestContext.requestId }, body },
    instance: 0,
  }),
  preload: async () => undefined,
  close: async () => undefined,
};
createServer((req, res) => {
  if (!handleRequest) return res.writeHead(200, { ...headers, 'X-Request-Id': randomUUID() }).end(Buffer.from(body));
  void handleRequest(req, res, randomUUID(), { requireGatewayKey: true }, functions);
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.({ ready: true }));
