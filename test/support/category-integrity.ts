/**
 * Reads a categories table straight from DynamoDB and checks the invariant the create transaction promises:
 * every NAME# reservation has its CATEGORY item and the other way round, and the COUNTER equals the highest id.
 * A half-written create (a name reserved without its category, a counter advanced for a refused write) shows here.
 */
import { type DynamoDBDocumentClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { nameKey } from '../../lib/categories/schema.js';

export interface StoredCategory {
  id: number;
  name: string;
  description?: string;
}

export interface TableIntegrity {
  categories: StoredCategory[];
  lastId: number;
  reservations: number;
  problems: string[];
}

export async function categoryIntegrity(db: DynamoDBDocumentClient, table: string): Promise<TableIntegrity> {
  const items: Record<string, unknown>[] = [];
  let startKey: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page = await db.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);

  const problems: string[] = [];
  const categories = items
    .filter((i) => i.pk === 'CATEGORY')
    .map((i) => ({
      id: Number(i.sk),
      name: String(i.name),
      ...(typeof i.description === 'string' ? { description: i.description } : {}),
    }))
    .sort((a, b) => a.id - b.id);
  const byId = new Map(categories.map((c) => [c.id, c]));
  const names = items.filter((i) => String(i.pk).startsWith('NAME#'));
  const reserved = new Map(names.map((i) => [String(i.pk).slice('NAME#'.length), Number(i.categoryId)]));
  const counter = items.find((i) => i.pk === 'COUNTER');
  const lastId = counter ? Number(counter.lastId) : 0;

  for (const [key, id] of reserved) {
    const category = byId.get(id);
    if (!category) problems.push(`name "${key}" is reserved for category ${id}, which does not exist`);
    else if (nameKey(category.name) !== key) problems.push(`name "${key}" is reserved for category ${id}, named "${category.name}"`);
  }
  for (const category of categories) {
    if (reserved.get(nameKey(category.name)) !== category.id) problems.push(`category ${category.id} has no name reservation`);
  }
  const maxId = categories.at(-1)?.id ?? 0;
  if (lastId !== maxId) problems.push(`the counter says ${lastId} but the highest id is ${maxId}`);
  const ids = categories.map((c) => c.id);
  if (ids.some((id, i) => id !== i + 1)) problems.push(`ids are not 1..n: ${ids.join(',')}`);
  const unknown = items.filter((i) => i.pk !== 'CATEGORY' && i.pk !== 'COUNTER' && !String(i.pk).startsWith('NAME#'));
  if (unknown.length) problems.push(`${unknown.length} items of unknown kind`);
  return { categories, lastId, reservations: reserved.size, problems };
}
