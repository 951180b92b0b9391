/**
 * What createCategory does: one transaction over every item it touches (keys.ts). The counter moves from n to n+1
 * only if the name is free under both reservations, the creator is within its allowance and the category is written:
 * ids are never reused, nothing is half-written, and racing creates pass neither the cap nor an allowance.
 */
import { TransactionCanceledException, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { nowMs } from '../clock.js';
import { config } from '../config.js';
import { type RetryPolicy, retrying } from '../dynamo/backoff.js';
import { hotClient, attributeValues as item } from '../dynamo/client.js';
import { COUNTER_KEY, categoryKey, creatorKey, foldedReservationKey, legacyReservationKey } from './keys.js';
import { CATEGORY_CAP, type Category, type NewCategory } from './schema.js';

class StaleGuess extends Error {}

/** A create that lost a race (a stale counter guess, a conflict) tries again, then gives up with CategoryContention. */
const RACING_CREATES: RetryPolicy = {
  attempts: 200,
  baseMs: 20,
  capMs: 200,
  retryable: (error) => error instanceof StaleGuess || error instanceof TransactionCanceledException,
  firstRetryAtOnce: (error) => error instanceof StaleGuess,
};

interface Counter {
  lastId: number;
  deleted: number;
}

const counterOf = (item: Record<string, unknown> | undefined): Counter => ({
  lastId: typeof item?.lastId === 'number' ? item.lastId : 0,
  deleted: typeof item?.deletedCount === 'number' ? item.deletedCount : 0,
});

const held = (counter: Counter) => counter.lastId - counter.deleted;

const environmentFull = () =>
  new CategoryLimitReached(`This environment already holds the maximum of ${CATEGORY_CAP} categories; no more can be created`);

export interface CategoryStoreOptions {
  /** How many categories one customer may hold; by default the function's CATEGORY_ALLOWANCE. */
  allowance?: number;
}

export function categoryStore(db: DynamoDBDocumentClient, table: string, options: CategoryStoreOptions = {}) {
  const allowance = options.allowance ?? config().CATEGORY_ALLOWANCE;
  const hot = hotClient(db);
  const putNew = (value: Record<string, unknown>) => ({
    Put: { TableName: table, Item: item(value), ConditionExpression: 'attribute_not_exists(pk)' },
  });
  /**
   * The counter as last seen: a warm function usually guesses right, a wrong guess learns from the failed condition,
   * and a new instance reads it (cheaper than a failing transaction), during admission thanks to `prepare`.
   */
  let lastKnown: Counter | undefined;
  let reading: Promise<Counter> | undefined;

  function learnCounter(): Promise<Counter> {
    reading ??= db
      .send(new GetCommand({ TableName: table, Key: COUNTER_KEY, ConsistentRead: true, ProjectionExpression: 'lastId, deletedCount' }))
      .then(({ Item }) => counterOf(Item))
      .finally(() => {
        reading = undefined;
      });
    return reading;
  }

  /** Starts reading the counter if not known yet (a read only, so before admission); a failed read is made again by the create. */
  function prepare(): void {
    if (lastKnown !== undefined) return;
    learnCounter().then(
      (counter) => (lastKnown ??= counter),
      () => undefined,
    );
  }

  async function createOnce(input: NewCategory, createdBy: string): Promise<Category> {
    const counter = lastKnown ?? { lastId: 0, deleted: 0 };
    // Deletes only ever raise `deleted`, so a stale view of it can refuse too early, never admit too many.
    if (held(counter) >= CATEGORY_CAP) throw environmentFull();
    const previous = counter.lastId;
    const id = previous + 1;
    const category: Category = { id, name: input.name, ...(input.description !== undefined ? { description: input.description } : {}) };
    try {
      await hot.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: item(COUNTER_KEY),
                UpdateExpression: 'SET lastId = :id',
                ConditionExpression: previous === 0 ? 'attribute_not_exists(lastId) OR lastId = :zero' : 'lastId = :previous',
                ExpressionAttributeValues: item(previous === 0 ? { ':id': id, ':zero': 0 } : { ':id': id, ':previous': previous }),
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            putNew({ ...legacyReservationKey(input.name), categoryId: id }),
            putNew({ ...foldedReservationKey(input.name), categoryId: id }),
            {
              Update: {
                TableName: table,
                Key: item(creatorKey(createdBy)),
                UpdateExpression: 'ADD #held :one',
                ConditionExpression: 'attribute_not_exists(#held) OR #held < :allowance',
                ExpressionAttributeNames: { '#held': 'held' },
                ExpressionAttributeValues: item({ ':one': 1, ':allowance': allowance }),
              },
            },
            putNew({ ...categoryKey(id), ...category, createdBy, createdAt: new Date(nowMs()).toISOString() }),
          ],
        }),
      );
      lastKnown = { lastId: id, deleted: counter.deleted };
      return category;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const [counterReason, legacyName, foldedName, creator] = error.CancellationReasons ?? [];
      if (creator?.Code === 'ConditionalCheckFailed')
        throw new CategoryLimitReached(
          `Your allowance of ${allowance} categories in this environment is used up (it counts the categories you created that still exist); no more can be created`,
        );
      if (legacyName?.Code === 'ConditionalCheckFailed' || foldedName?.Code === 'ConditionalCheckFailed')
        throw new CategoryExists(
          `A category named "${input.name}" already exists (names are compared ignoring case and character variants: "Straße" and "STRASSE", or "ﬁsh" and "fish", are one name)`,
        );
      if (counterReason?.Code === 'ConditionalCheckFailed') {
        lastKnown = counterOf(counterReason.Item ? unmarshall(counterReason.Item) : undefined);
        throw new StaleGuess('the counter moved', { cause: error });
      }
      // TransactionConflict: another create, or a delete, touched the same items at the same moment.
      throw error;
    }
  }

  /** Creates a category on behalf of `createdBy`, the customer whose allowance it counts against. */
  async function create(input: NewCategory, createdBy: string): Promise<Category> {
    if (lastKnown === undefined) {
      const read = await learnCounter();
      lastKnown ??= read;
    }
    // A delete may have made room since this instance last looked: look again before refusing.
    if (held(lastKnown) >= CATEGORY_CAP) lastKnown = await learnCounter();
    try {
      return await retrying(() => createOnce(input, createdBy), RACING_CREATES);
    } catch (error) {
      if (RACING_CREATES.retryable(error)) throw new CategoryContention('Too many categories are being created at once; retry shortly');
      throw error;
    }
  }

  return { create, prepare };
}

export class CategoryExists extends Error {
  override readonly name = 'CategoryExists';
}

export class CategoryLimitReached extends Error {
  override readonly name = 'CategoryLimitReached';
}

/** Creates kept colliding on the id counter past every retry: retryable, like an unavailable store. */
export class CategoryContention extends Error {
  override readonly name = 'CategoryContention';
}
