/** NewCategory and Category as CONTRACT.md defines them; request and response types are inferred from these. */
import * as v from 'valibot';

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 500;
/**
 * At most this many categories per environment. Worst case a category serialises to about 3.5 KB (100
 * four-byte characters of name, 500 escaped characters of description), so a full list stays near 3.5 MB, under
 * Lambda's 6 MB response limit; typical lists are a few KB.
 */
export const CATEGORY_CAP = 1_000;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the rule is exactly "no control characters"
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
const codePoints = (s: string) => [...s].length;

export const NewCategorySchema = v.strictObject(
  {
    name: v.pipe(
      v.string('"name" must be a string'),
      v.trim(),
      v.normalize('NFC'),
      v.check((s) => s.length > 0, '"name" must not be empty or only white space'),
      v.check((s) => codePoints(s) <= NAME_MAX, `"name" must be at most ${NAME_MAX} characters`),
      v.check((s) => !CONTROL.test(s), '"name" must not contain control characters'),
    ),
    description: v.optional(
      v.pipe(
        v.string('"description" must be a string'),
        v.check((s) => codePoints(s) <= DESCRIPTION_MAX, `"description" must be at most ${DESCRIPTION_MAX} characters`),
      ),
    ),
  },
  // Replaced per field in validationMessage(), which knows the offending key.
  'unknown field',
);
export type NewCategory = v.InferOutput<typeof NewCategorySchema>;

export const CategorySchema = v.object({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  name: v.string(),
  description: v.optional(v.string()),
});
export type Category = v.InferOutput<typeof CategorySchema>;

/** One message that names the first field at fault, in words a person can act on. */
export function validationMessage(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return `The request body must be a JSON object such as {"name":"Dog"}, not ${input === null ? 'null' : Array.isArray(input) ? 'an array' : `a ${typeof input}`}`;
  }
  const result = v.safeParse(NewCategorySchema, input);
  if (result.success) return undefined;
  const issue = result.issues[0];
  if (!issue) return 'The request body is not a valid NewCategory';
  const field = v.getDotPath(issue);
  if (field && field in NewCategorySchema.entries && issue.input === undefined) {
    return field === 'name' ? '"name" is required' : `"${field}" must be a string`;
  }
  if (issue.kind === 'schema' && issue.type === 'strict_object' && field) {
    return field === 'id'
      ? 'Unknown field "id": the id is assigned by the service and must not be sent'
      : `Unknown field "${field}": a NewCategory has only "name" and "description"`;
  }
  return issue.message;
}

export function parseNewCategory(input: unknown): { ok: true; value: NewCategory } | { ok: false; message: string } {
  const message = validationMessage(input);
  if (message !== undefined) return { ok: false, message };
  return { ok: true, value: v.parse(NewCategorySchema, input) };
}

/** Names are unique per environment, compared case-insensitively after trimming and NFC normalisation. */
export function nameKey(name: string): string {
  return name.normalize('NFC').trim().toLowerCase().normalize('NFC');
}
