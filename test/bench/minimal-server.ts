/**
 * The baseline of the end-to-end load benchmark: a bare node:http server that makes the same DynamoDB calls per
 * GET /v1/categories as the real stack in the common case (a cached key check, then the counter's conditional
 * UpdateItem and the categories Query in parallel), with no framework, no validation and no middleware.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoClient } from '../../lib/dynamo/client.js';

const db = DynamoDBDocumentClient.from(createDynamoClient(process.env.DYNAMODB_ENDPOINT));
/** A variable the bench sets for this server (tables, port): absent is a bench bug, not an empty name. */
function env(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`minimal-server: ${name} is not set`);
  return value;
}
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

async function count(customerId: string, perMinute: number, perDay: number): Promise<boolean> {
  const now = Math.floor(Date.now() / 1000);
  const m = now - (now % 60);
  const d = now - (now % 86400);
  try {
    // The counts named after their windows, as lib/rate-limit/counter-item.ts stores them: one write, no rollover.
    await db.send(
      new UpdateCommand({
        TableName: env('COUNTERS_TABLE'),
        Key: { customerId },
        UpdateExpression: 'ADD #m :one, #d :one',
        ConditionExpression: '(attribute_not_exists(#m) OR #m < :pm) AND (attribute_not_exists(#d) OR #d < :pd)',
        ExpressionAttributeNames: { '#m': `m${m}`, '#d': `d${d}` },
        ExpressionAttributeValues: { ':one': 1, ':pm': perMinute, ':pd': perDay },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

const server = createServer(async (req, res) => {
  const auth = await authorize(req.headers.authorization);
  if (!auth) {
    res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"code":"UNAUTHORIZED"}');
    return;
  }
  const [admitted, page] = await Promise.all([
    count(auth.customerId, auth.perMinute, auth.perDay),
    db.send(
      new QueryCommand({
        TableName: env('CATEGORIES_TABLE'),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'CATEGORY' },
      }),
    ),
  ]);
  if (!admitted) {
    res.writeHead(429, { 'Content-Type': 'application/json' }).end('{"code":"RATE_LIMIT_EXCEEDED"}');
    return;
  }
  const body = JSON.stringify(
    (page.Items ?? []).map((i) => ({ id: i.id, name: i.name, ...(i.description ? { description: i.description } : {}) })),
  );
  res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
});

server.listen(Number(env('PORT')), '127.0.0.1', () => process.send?.({ ready: true }));
