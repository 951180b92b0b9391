/**
 * The baseline of the end-to-end load benchmark: a bare node:http server that makes the same DynamoDB calls per
 * GET /v1/categories as the real stack in the common case (a cached key check, then the counter's conditional
 * UpdateItem and the categories Query in parallel), with no framework, no validation and no middleware.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoClient } from '../../lib/dynamo/client.js';
import { env, listCategoriesBare } from './minimal-calls.js';

const db = DynamoDBDocumentClient.from(createDynamoClient(process.env.DYNAMODB_ENDPOINT));
const authCache = new Map<string, { customerId: string; perMinute: number; perDay: number; expires: number }>();

async function authorize(header: string | undefined) {
  const key = header?.slice('Bearer '.length) ?? '';
  const cached = authCache.get(key);
  if (cached && cached.expires > Date.now()) return cached;
  const { Item: record } = await db.send(
    new GetCommand({ TableName: env('KEYS_TABLE'), Key: { keyHash: createHash('sha256').update(key).digest('hex') } }),
  );
  if (!record) return undefined;
  const { Item: customer } = await db.send(new GetCommand({ TableName: env('CUSTOMERS_TABLE'), Key: { customerId: record.customerId } }));
  const entry = {
    customerId: record.customerId,
    perMinute: customer?.perMinute ?? 1000,
    perDay: customer?.perDay ?? 100000,
    expires: Date.now() + 60_000,
  };
  authCache.set(key, entry);
  return entry;
}

const server = createServer(async (req, res) => {
  const auth = await authorize(req.headers.authorization);
  if (!auth) {
    res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"code":"UNAUTHORIZED"}');
    return;
  }
  const { status, body } = await listCategoriesBare(db, auth);
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
});

server.listen(Number(env('PORT')), '127.0.0.1', () => process.send?.({ ready: true }));
