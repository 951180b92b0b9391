/** The README's table of `npm start`'s variables, checked against what the local tooling reads (LocalEnvSchema). */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalEnvSchema } from '../../lib/config.js';
import { plain, tableRows } from './markdown.js';

/** Read by the functions' logger rather than the local schema, and set by `npm start` for them. */
const ALSO_DOCUMENTED = ['LOG_LEVEL'];

describe("the README's variables table", () => {
  it('lists every variable of LocalEnvSchema exactly once, and no other', () => {
    const rows = tableRows(resolve(import.meta.dirname, '../../README.md'), ['variable', 'default', 'what']);
    const listed = rows.flatMap(([cell = '']) => cell.split(',').map((name) => plain(name.trim())));
    expect(listed.filter((name, i) => listed.indexOf(name) !== i)).toEqual([]);
    expect([...listed].sort()).toEqual([...Object.keys(LocalEnvSchema.entries), ...ALSO_DOCUMENTED].sort());
  });
});
