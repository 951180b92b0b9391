/**
 * Checks a request's JSON body against its route's schema and words the first fault so a person can act on it.
 * First every string (field names included) must be well-formed Unicode: a \u escape can spell a lone surrogate,
 * which UTF-8 cannot encode, and a stored one would make every later answer holding it unreadable to strict decoders.
 */
import * as v from 'valibot';

/** A JSON object schema, piped or not: its fields are what the messages name. */
export type BodySchema<TOutput = unknown> = v.GenericSchema<unknown, TOutput> & { readonly entries: v.ObjectEntries };

export type Checked = { ok: true; value: unknown } | { ok: false; message: string };

function kindOf(input: unknown): string {
  if (input === null) return 'null';
  return Array.isArray(input) ? 'an array' : `a ${typeof input}`;
}

/** `{"name":"Dog"}` from the first example of each required field of an object schema. */
function exampleOf(entries: v.ObjectEntries): string {
  const example: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(entries)) {
    const examples: readonly unknown[] = v.getExamples(schema);
    const first = examples[0];
    if (schema.type !== 'optional' && first !== undefined) example[name] = first;
  }
  return JSON.stringify(example);
}

/** A UTF-16 code unit of a surrogate pair standing alone; a `u` regex sees a whole pair as one code point. */
const LONE_SURROGATE = /\p{Surrogate}/u;

function codeUnit(text: string): string {
  const unit = LONE_SURROGATE.exec(text)?.[0] ?? '';
  return `U+${unit.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A string to check, with where it is; or a field name. */
type Visit = { value: unknown; path: string } | { fieldName: string };

/** The first string that is not well-formed Unicode, in document order, by a walk with a stack of its own. */
export function illFormedString(body: unknown): string | undefined {
  const visits: Visit[] = [{ value: body, path: '' }];
  for (let visit = visits.pop(); visit; visit = visits.pop()) {
    if ('fieldName' in visit) {
      const key = visit.fieldName;
      if (LONE_SURROGATE.test(key)) return `A field name must be well-formed Unicode: it holds a lone surrogate (${codeUnit(key)})`;
      continue;
    }
    const { value, path } = visit;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) {
        return `"${path}" must be well-formed Unicode: it holds a lone surrogate (${codeUnit(value)}), half of a \\u escape pair`;
      }
    } else if (Array.isArray(value)) {
      // Pushed last to first, so that the first item is visited first.
      for (const [i, item] of [...value.entries()].reverse()) visits.push({ value: item, path: `${path}[${i}]` });
    } else if (typeof value === 'object' && value !== null) {
      // Each field's name before its value, and before the next field.
      for (const [key, item] of Object.entries(value).reverse())
        visits.push({ value: item, path: path ? `${path}.${key}` : key }, { fieldName: key });
    }
  }
  return undefined;
}

export function validateBody(schema: BodySchema, input: unknown): Checked {
  const { entries } = schema;
  const title = v.getTitle(schema) ?? 'request body';
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, message: `The request body must be a JSON object such as ${exampleOf(entries)}, not ${kindOf(input)}` };
  }
  const illFormed = illFormedString(input);
  if (illFormed) return { ok: false, message: illFormed };
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.output };
  const issue = result.issues[0];
  const field = issue && v.getDotPath(issue);
  if (!issue) return { ok: false, message: `The request body is not a valid ${title}` };
  if (field && field in entries && issue.input === undefined) return { ok: false, message: `"${field}" is required` };
  if (issue.kind === 'schema' && issue.type === 'strict_object' && field) {
    const known = Object.keys(entries).map((name) => `"${name}"`);
    return {
      ok: false,
      message:
        field === 'id'
          ? 'Unknown field "id": the id is assigned by the service and must not be sent'
          : `Unknown field "${field}": a ${title} has only ${known.slice(0, -1).join(', ')}${known.length > 1 ? ' and ' : ''}${known.at(-1) ?? ''}`,
    };
  }
  return { ok: false, message: issue.message };
}
