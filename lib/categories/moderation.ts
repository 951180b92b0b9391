/** The admin CLI's categories: list them with their creators, rename, delete, and reserve every name anew. */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { type ChangeOptions, ConcurrentChange, type TransactItem, transact } from '../auth/admin-change.js';
import { type RetryPolicy, retrying } from '../dynamo/backoff.js';
import { getItems } from '../dynamo/batch-get.js';
import {
  CATEGORY_PK,
  COUNTER_KEY,
  categoryKey,
  creatorKey,
  foldedName,
  foldedReservationKey,
  type ItemKey,
  legacyReservationKey,
} from './keys.js';
import { CategoryExists } from './store.js';

/** A category as stored, with what the API never shows: who created it and when (null: stored before that was kept). */
export interface StoredCategory {
  id: number;
  name: string;
  description?: string;
  createdBy: string | null;
  createdAt: string | null;
}

/** Names that are one name under the rule, held by more than one stored category. */
export interface NameCollision {
  folded: string;
  /** Oldest first. */
  categories: StoredCategory[];
  /** The category that holds the name's reservation: no other can take the name while it does. */
  holder: number | null;
}

export interface NameReservationReport {
  checked: number;
  /** Categories whose reservation this run wrote. */
  reserved: StoredCategory[];
  collisions: NameCollision[];
}

/** A change that lost a race on the counter or a reservation (TransactionConflict) is tried again, about 3 s at worst. */
const CONFLICTS: RetryPolicy = {
  attempts: 10,
  baseMs: 20,
  capMs: 500,
  retryable: (error) => error instanceof TransactionCanceledException,
};

const storedOf = (item: Record<string, unknown>): StoredCategory => ({
  id: Number(item.sk),
  name: String(item.name),
  ...(typeof item.description === 'string' ? { description: item.description } : {}),
  createdBy: typeof item.createdBy === 'string' ? item.createdBy : null,
  createdAt: typeof item.createdAt === 'string' ? item.createdAt : null,
});

/**
 * Every change is one TransactWriteItems guarded on the category as read, with the audit record in `also`. A
 * reservation is removed only by its holder, so a change racing a create of the same name leaves exactly one. A
 * delete gives its place back under the cap and its creator's allowance; its id is never handed out again.
 */
export function categoryModeration(db: DynamoDBDocumentClient, table: string) {
  const putNew = (Item: Record<string, unknown>) => ({ Put: { TableName: table, Item, ConditionExpression: 'attribute_not_exists(pk)' } });
  /** The category holding each reservation among `keys` (none: unreserved), read consistently. */
  async function holders(keys: readonly ItemKey[]): Promise<Map<string, number>> {
    const unique = [...new Map(keys.map((key) => [key.pk, key])).values()];
    const found = new Map<string, number>();
    for (let at = 0; at < unique.length; at += 100) {
      for (const item of await getItems(db, table, unique.slice(at, at + 100))) found.set(String(item.pk), Number(item.categoryId));
    }
    return found;
  }

  const unchanged = (seen: StoredCategory) => ({
    ConditionExpression: '#name = :seenName',
    ExpressionAttributeNames: { '#name': 'name' },
    ExpressionAttributeValues: { ':seenName': seen.name },
  });
  const heldBy = (id: number) => ({ ConditionExpression: 'categoryId = :id', ExpressionAttributeValues: { ':id': id } });
  const concurrent = (id: number) =>
    new ConcurrentChange(`category ${id} changed while the command ran: nothing was written; run it again`);
  const taken = (name: string, holder: number) =>
    new CategoryExists(
      `category ${holder} already has the name "${name}" as uniqueness compares names (ignoring case and character variants such as "ß"/"ss" or "ﬁ"/"fi")`,
    );

  async function list(filter: { createdBy?: string } = {}): Promise<StoredCategory[]> {
    const categories: StoredCategory[] = [];
    const pages = paginateQuery(
      { client: db },
      {
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ...(filter.createdBy ? { FilterExpression: 'createdBy = :createdBy' } : {}),
        ExpressionAttributeValues: { ':pk': CATEGORY_PK, ...(filter.createdBy ? { ':createdBy': filter.createdBy } : {}) },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) categories.push(...(page.Items ?? []).map(storedOf));
    return categories;
  }

  async function get(id: number): Promise<StoredCategory | undefined> {
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: categoryKey(id), ConsistentRead: true }));
    return Item ? storedOf(Item) : undefined;
  }

  /** Renames `seen`: the new name's reservations taken (refused if another holds one), the old ones it holds given up. */
  async function rename(seen: StoredCategory, name: string, options: ChangeOptions = {}): Promise<StoredCategory> {
    const pairs = [
      [legacyReservationKey(seen.name), legacyReservationKey(name)],
      [foldedReservationKey(seen.name), foldedReservationKey(name)],
    ] as const;
    await retrying(async () => {
      const held = await holders(pairs.flat());
      const items: TransactItem[] = [
        {
          Update: {
            TableName: table,
            Key: categoryKey(seen.id),
            UpdateExpression: 'SET #name = :name',
            ...unchanged(seen),
            ExpressionAttributeValues: { ':seenName': seen.name, ':name': name },
          },
        },
      ];
      const meanings: Error[] = [concurrent(seen.id)];
      for (const [before, after] of pairs) {
        const holder = held.get(after.pk);
        if (holder !== undefined && holder !== seen.id) throw taken(name, holder);
        if (holder === undefined) {
          items.push(putNew({ ...after, categoryId: seen.id }));
          meanings.push(new CategoryExists(`another category took the name "${name}" while the command ran: nothing was written`));
        }
        if (before.pk !== after.pk && held.get(before.pk) === seen.id) {
          items.push({ Delete: { TableName: table, Key: before, ...heldBy(seen.id) } });
          meanings.push(concurrent(seen.id));
        }
      }
      await transact(db, [...items, ...(options.also ?? [])], (index) => meanings[index]);
    }, CONFLICTS);
    return { ...seen, name };
  }

  async function remove(seen: StoredCategory, options: ChangeOptions = {}): Promise<void> {
    const reservations = [legacyReservationKey(seen.name), foldedReservationKey(seen.name)];
    await retrying(async () => {
      const held = await holders(reservations);
      const items: TransactItem[] = [{ Delete: { TableName: table, Key: categoryKey(seen.id), ...unchanged(seen) } }];
      const meanings: Error[] = [concurrent(seen.id)];
      for (const key of reservations) {
        if (held.get(key.pk) !== seen.id) continue;
        items.push({ Delete: { TableName: table, Key: key, ...heldBy(seen.id) } });
        meanings.push(concurrent(seen.id));
      }
      if (seen.createdBy !== null) {
        items.push({
          Update: {
            TableName: table,
            Key: creatorKey(seen.createdBy),
            UpdateExpression: 'ADD #held :minusOne',
            ConditionExpression: '#held > :zero',
            ExpressionAttributeNames: { '#held': 'held' },
            ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
          },
        });
        meanings.push(new Error(`customer ${seen.createdBy} is counted as holding no categories, yet created category ${seen.id}`));
      }
      items.push({
        Update: { TableName: table, Key: COUNTER_KEY, UpdateExpression: 'ADD deletedCount :one', ExpressionAttributeValues: { ':one': 1 } },
      });
      await transact(db, [...items, ...(options.also ?? [])], (index) => meanings[index]);
    }, CONFLICTS);
  }

  /**
   * Writes the NFKC_Casefold reservation of every category lacking it (the oldest of colliding ones takes it, if its
   * name is unchanged) and reports collisions, merging nothing. Running it again is harmless.
   */
  async function reserveNames(): Promise<NameReservationReport> {
    const categories = (await list()).sort((a, b) => a.id - b.id);
    const groups = new Map<string, { key: ItemKey; folded: string; categories: StoredCategory[] }>();
    for (const category of categories) {
      const key = foldedReservationKey(category.name);
      const group = groups.get(key.pk) ?? { key, folded: foldedName(category.name), categories: [] };
      group.categories.push(category);
      groups.set(key.pk, group);
    }
    const held = await holders([...groups.values()].map((g) => g.key));
    const reserved: StoredCategory[] = [];
    const collisions: NameCollision[] = [];
    for (const [pk, group] of groups) {
      let holder = held.get(pk) ?? null;
      const oldest = group.categories[0];
      if (holder === null && oldest) {
        try {
          await transact(
            db,
            [
              { ConditionCheck: { TableName: table, Key: categoryKey(oldest.id), ...unchanged(oldest) } },
              putNew({ ...group.key, categoryId: oldest.id }),
            ],
            () => new ConcurrentChange('changed meanwhile'),
          );
          holder = oldest.id;
          reserved.push(oldest);
        } catch (error) {
          if (!(error instanceof ConcurrentChange)) throw error;
          // Renamed, deleted or taken meanwhile: the report says who holds it now.
          holder = (await holders([group.key])).get(pk) ?? null;
        }
      }
      if (group.categories.length > 1) collisions.push({ folded: group.folded, categories: group.categories, holder });
    }
    return { checked: categories.length, reserved, collisions };
  }

  return { list, get, rename, remove, reserveNames };
}
