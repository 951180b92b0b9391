/**
 * Reads a categories table straight from DynamoDB and checks the invariants every change promises (the items are
 * described in lib/categories/keys.ts): each category has both name reservations and each reservation its category;
 * each customer's CREATOR count is the number of categories it created that still exist; the counter's last id less
 * its deleted count is the number of categories, and no id is above the last. Without deletes that means ids 1..n.
 * A half-written change (a name reserved without its category, a counter advanced for a refused write) shows here.
 */
import { type DynamoDBDocumentClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import {
  CREATOR_PREFIX,
  FOLDED_NAME_PREFIX,
  foldedReservationKey,
  HASHED_NAME_PREFIX,
  LEGACY_NAME_PREFIX,
  legacyReservationKey,
} from '../../lib/categories/keys.js';

/** A category as the API shows it. */
export interface StoredCategory {
  id: number;
  name: string;
  description?: string;
}

export interface TableIntegrity {
  categories: StoredCategory[];
  /** Who created each category, by id (none: stored before creators were recorded). */
  createdBy: Map<number, string>;
  lastId: number;
  deleted: number;
  /** Legacy (NAME#) reservations. */
  reservations: number;
  problems: string[];
}

export async function scanTable(db: DynamoDBDocumentClient, table: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page = await db.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

export async function categoryIntegrity(db: DynamoDBDocumentClient, table: string): Promise<TableIntegrity> {
  const items = await scanTable(db, table);
  const problems: string[] = [];
  const categoryItems = items.filter((i) => i.pk === 'CATEGORY');
  const categories: StoredCategory[] = categoryItems
    .map((i) => ({
      id: Number(i.sk),
      name: String(i.name),
      ...(typeof i.description === 'string' ? { description: i.description } : {}),
    }))
    .sort((a, b) => a.id - b.id);
  const createdBy = new Map(categoryItems.flatMap((i) => (typeof i.createdBy === 'string' ? [[Number(i.sk), i.createdBy] as const] : [])));
  const byId = new Map(categories.map((c) => [c.id, c]));
  const pk = (i: Record<string, unknown>) => String(i.pk);
  const reservationsOf = (...prefixes: string[]) =>
    new Map(items.filter((i) => prefixes.some((p) => pk(i).startsWith(p))).map((i) => [pk(i), Number(i.categoryId)]));
  const legacy = reservationsOf(LEGACY_NAME_PREFIX);
  const folded = reservationsOf(FOLDED_NAME_PREFIX, HASHED_NAME_PREFIX);
  const kinds: [string, Map<string, number>, (name: string) => { pk: string }][] = [
    ['name', legacy, legacyReservationKey],
    ['folded name', folded, foldedReservationKey],
  ];
  for (const [kind, reserved, keyOf] of kinds) {
    for (const [key, id] of reserved) {
      const category = byId.get(id);
      if (!category) problems.push(`${kind} "${key}" is reserved for category ${id}, which does not exist`);
      else if (keyOf(category.name).pk !== key) problems.push(`${kind} "${key}" is reserved for category ${id}, named "${category.name}"`);
    }
    for (const category of categories) {
      if (reserved.get(keyOf(category.name).pk) !== category.id) problems.push(`category ${category.id} has no ${kind} reservation`);
    }
  }
  const creators = items.filter((i) => pk(i).startsWith(CREATOR_PREFIX));
  for (const creator of creators) {
    const customerId = pk(creator).slice(CREATOR_PREFIX.length);
    const count = [...createdBy.values()].filter((c) => c === customerId).length;
    if (Number(creator.held) !== count) problems.push(`customer ${customerId} is counted as holding ${creator.held}, but holds ${count}`);
  }
  for (const customerId of new Set(createdBy.values())) {
    if (!creators.some((i) => pk(i) === `${CREATOR_PREFIX}${customerId}`))
      problems.push(`customer ${customerId} holds categories but has no count`);
  }
  const counter = items.find((i) => i.pk === 'COUNTER');
  const lastId = counter ? Number(counter.lastId) : 0;
  const deleted = counter && typeof counter.deletedCount === 'number' ? counter.deletedCount : 0;
  if (lastId - deleted !== categories.length) {
    problems.push(`the counter says ${lastId} handed out and ${deleted} deleted, but ${categories.length} categories exist`);
  }
  const maxId = categories.at(-1)?.id ?? 0;
  if (maxId > lastId) problems.push(`the counter says ${lastId} but category ${maxId} exists`);
  const known = [LEGACY_NAME_PREFIX, FOLDED_NAME_PREFIX, HASHED_NAME_PREFIX, CREATOR_PREFIX];
  const unknown = items.filter((i) => i.pk !== 'CATEGORY' && i.pk !== 'COUNTER' && !known.some((p) => pk(i).startsWith(p)));
  if (unknown.length) problems.push(`${unknown.length} items of unknown kind`);
  return { categories, createdBy, lastId, deleted, reservations: legacy.size, problems };
}
