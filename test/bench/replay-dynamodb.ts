/**
 * Bench only, loaded first (`--import`) or imported before any client is built: each DynamoDB client's answers to
 * UpdateItem and Query, taken from DynamoDB Local for its first 50 of each, are then replayed without a request, so a
 * measurement sees the process's own CPU without DynamoDB Local's JVM or the HTTP client to it. Other calls are sent.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { NodeHttpHandler as Handler } from '@smithy/node-http-handler';
import type { HttpResponse } from '@smithy/types';

// The copy of the tree the process runs in (load-compare.ts starts each server in its tree), which its clients use.
const { NodeHttpHandler } = createRequire(join(process.cwd(), 'package.json'))('@smithy/node-http-handler') as {
  NodeHttpHandler: typeof Handler;
};

const RECORDED_CALLS = 50;
const REPLAYED = /\.(UpdateItem|Query)$/;
type Answer = { headers: HttpResponse['headers']; body: Buffer; seen: number };
const answers = new WeakMap<Handler, Map<string, Answer>>();
const send = NodeHttpHandler.prototype.handle;

NodeHttpHandler.prototype.handle = async function replayed(this: Handler, request, options) {
  const target = request.headers['x-amz-target'] ?? '';
  const own = answers.get(this) ?? new Map<string, Answer>();
  answers.set(this, own);
  const answer = own.get(target);
  // A plain answer: the SDK takes any object with a numeric statusCode and headers (HttpResponse.isInstance).
  if (answer && answer.seen >= RECORDED_CALLS) return { response: { statusCode: 200, headers: answer.headers, body: answer.body } };
  const { response } = await send.call(this, request, options);
  const chunks: Buffer[] = [];
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  const body = Buffer.concat(chunks);
  // Counted after the answer, not before the call: of 16 calls in flight, each one counts.
  if (response.statusCode === 200 && REPLAYED.test(target))
    own.set(target, { headers: response.headers, body, seen: (own.get(target)?.seen ?? 0) + 1 });
  return { response: { ...response, body } };
};
