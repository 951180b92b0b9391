/**
 * Category storage. One table holds three kinds of item:
 *   { pk: "COUNTER", sk: 0, lastId }              the last id handed out
 *   { pk: "CATEGORY", sk: <id>, id, name, ... }   a category; a Query on pk lists them in id order
 *   { pk: "NAME#<lower-case name>", sk: 0 }       the reservation that makes names unique
 * A create is one transaction over all three: the counter moves from n to n+1 only if the name is free and the
 * category is written, so ids are gapless, never reused, and nothing is ever half-written. Built like every store:
 * a factory over a document client and the table's name.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandOutput,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { nowMs } from '../clock.js';
import { type RetryPolicy, retrying } from '../dynamo/backoff.js';
import { CategoryContention, CategoryExists, CategoryLimitReached } from './errors.js';
import { CATEGORY_CAP, type Category, type NewCategory, nameKey } from './schema.js';

const COUNTER_KEY = { pk: 'COUNTER', sk: 0 };

/** A create whose guess of the counter was stale: the counter's value is learnt from the failure. */
class StaleGuess extends Error {}

/**
 * Creates racing on the counter (other Lambda instances) are kept exact by its condition. A create that lost (its
 * guess was stale, or its transaction conflicted with another's at the same moment) tries again after a jittered
 * wait that spreads the racers: 20 ms doubling, at most 200 ms, up to 200 attempts before it answers
 * CATEGORY_CONTENTION. A first guess found stale goes again at once: another instance created one first, and the
 * corrected guess is right unless it keeps creating. A name taken or the cap reached is answered at once.
 */
const RACING_CREATES: RetryPolicy = {
  attempts: 200,
  baseMs: 20,
  capMs: 200,
  retryable: (error) => error instanceof StaleGuess || error instanceof TransactionCanceledException,
  firstRetryAtOnce: (error) => error instanceof StaleGuess,
};

export function categoryStore(db: DynamoDBDocumentClient, table: string) {
  /**
   * The last id this store saw. A warm function usually guesses right and creates in one round trip; a wrong
   * guess costs one more, because the failed condition returns the counter's real value. A new instance has seen
   * nothing: it reads the counter (a GetItem, one read unit) instead of learning it from a transaction that fails
   * (a write per item and the error's round trip), and `prepare` lets it read while the request waits for
   * admission, so a cold create costs no more round trips than a warm one.
   */
  let lastKnownId: number | undefined;
  let reading: Promise<number> | undefined;

  function learnLastId(): Promise<number> {
    reading ??= db
      .send(new GetCommand({ TableName: table, Key: COUNTER_KEY, ConsistentRead: true, ProjectionExpression: 'lastId' }))
      .then(({ Item }) => (typeof Item?.lastId === 'number' ? Item.lastId : 0))
      .finally(() => {
        reading = undefined;
      });
    return reading;
  }

  /**
   * On an instance that has not learnt the counter yet, starts reading it; a create then waits for that read. A read
   * only, so it may start before the request is admitted. A create still waiting for the read shares its outcome;
   * a read that failed before the create began is made again by the create.
   */
  function prepare(): void {
    if (lastKnownId !== undefined) return;
    learnLastId().then(
      (id) => {
        lastKnownId ??= id;
      },
      () => undefined,
    );
  }

  async function list(): Promise<Category[]> {
    const categories: Category[] = [];
    let startKey: QueryCommandOutput['LastEvaluatedKey'];
    do {
      const page = await db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'CATEGORY' },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) categories.push(toCategory(item));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return categories;
  }

  /** One attempt at creating with the next id after the last one known: the category, or why not. */
  async function createOnce(input: NewCategory, key: string): Promise<Category> {
    const previous = lastKnownId ?? 0;
    const id = previous + 1;
    if (id > CATEGORY_CAP) {
      throw new CategoryLimitReached(`This environment already holds the maximum of ${CATEGORY_CAP} categories; no more can be created`);
    }
    const category: Category = { id, name: input.name, ...(input.description !== undefined ? { description: input.description } : {}) };
    try {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: COUNTER_KEY,
                UpdateExpression: 'SET lastId = :id',
                ConditionExpression: previous === 0 ? 'attribute_not_exists(lastId) OR lastId = :zero' : 'lastId = :previous',
                ExpressionAttributeValues: previous === 0 ? { ':id': id, ':zero': 0 } : { ':id': id, ':previous': previous },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              Put: {
                TableName: table,
                Item: { pk: `NAME#${key}`, sk: 0, categoryId: id },
                ConditionExpression: 'attribute_not_exists(pk)',
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              Put: {
                TableName: table,
                Item: { pk: 'CATEGORY', sk: id, ...category, createdAt: new Date(nowMs()).toISOString() },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      lastKnownId = id;
      return category;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const [counter, name] = error.CancellationReasons ?? [];
      if (name?.Code === 'ConditionalCheckFailed') {
        throw new CategoryExists(`A category named "${input.name}" already exists (names are compared ignoring case)`);
      }
      if (counter?.Code === 'ConditionalCheckFailed') {
        const item = counter.Item ? unmarshall(counter.Item) : {};
        lastKnownId = typeof item.lastId === 'number' ? item.lastId : 0;
        throw new StaleGuess('the counter moved', { cause: error });
      }
      // TransactionConflict: another create touched the same items at the same moment.
      throw error;
    }
  }

  async function create(input: NewCategory): Promise<Category> {
    const key = nameKey(input.name);
    if (lastKnownId === undefined) {
      const read = await learnLastId();
      lastKnownId ??= read;
    }
    try {
      return await retrying(() => createOnce(input, key), RACING_CREATES);
    } catch (error) {
      if (RACING_CREATES.retryable(error)) throw new CategoryContention('Too many categories are being created at once; retry shortly');
      throw error;
    }
  }

  return { list, create, prepare };
}

export type CategoryStore = ReturnType<typeof categoryStore>;

function toCategory(item: Record<string, unknown>): Category {
  return {
    id: Number(item.id),
    name: String(item.name),
    ...(typeof item.description === 'string' ? { description: item.description } : {}),
  };
}
