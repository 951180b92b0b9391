/**
 * The tables of the docs that restate code, checked against it: the error codes and their statuses (docs/api.md),
 * the admin CLI's commands and synopses (docs/operating.md), and the cdk.json settings with their defaults and the
 * values cdk.json gives each stage (docs/deploying.md). A change to one side without the other fails here.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { StageSettingsSchema } from '../../infra/config.js';
import { COMMANDS } from '../../lib/cli/dispatch.js';
import { ERROR_CODES, ERROR_STATUS, isErrorCode } from '../../lib/http/error-codes.js';
import { plain, tableRows } from './markdown.js';

const ROOT = resolve(import.meta.dirname, '../..');
const doc = (name: string) => resolve(ROOT, 'docs', name);

describe('the error table of docs/api.md', () => {
  const rows = tableRows(doc('api.md'), ['status', 'code', 'when']);
  const codes = rows.map(([, code = '']) => plain(code));

  it('lists every code of ERROR_STATUS exactly once, and no other', () => {
    expect(codes.filter((code, i) => codes.indexOf(code) !== i)).toEqual([]);
    expect([...codes].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('gives each code the status the code answers with', () => {
    for (const [status = '', cell = ''] of rows) {
      const code = plain(cell);
      if (!isErrorCode(code)) throw new Error(`${code} is not an error code of lib/http/error-codes.ts`);
      expect(Number(status), code).toBe(ERROR_STATUS[code]);
    }
  });
});

describe('the commands table of docs/operating.md', () => {
  it('lists every command of COMMANDS with its synopsis, in the order of the usage text', () => {
    const rows = tableRows(doc('operating.md'), ['command', 'does']);
    expect(rows.map(([command = '']) => plain(command))).toEqual(COMMANDS.map((c) => `${c.name} ${c.synopsis}`.trim()));
  });
});

describe('the settings table of docs/deploying.md', () => {
  const rows = tableRows(doc('deploying.md'), ['key', 'default', 'staging', 'production', 'meaning']);
  const keys = Object.keys(StageSettingsSchema.pipe[0].entries);

  it('lists every key of StageSettingsSchema exactly once, and no other', () => {
    const listed = rows.map(([key = '']) => plain(key));
    expect(listed.filter((key, i) => listed.indexOf(key) !== i)).toEqual([]);
    expect([...listed].sort()).toEqual([...keys].sort());
  });

  it('gives each key the default of the schema, and what cdk.json sets for each stage ("–" for nothing)', () => {
    const defaults: Record<string, unknown> = v.parse(StageSettingsSchema, {});
    const context = JSON.parse(readFileSync(resolve(ROOT, 'cdk.json'), 'utf8')).context.petstore;
    const shown = (value: unknown, none: string) => (value === undefined ? none : String(value));
    for (const [key = '', byDefault = '', staging = '', production = ''] of rows.map((row) => row.map(plain))) {
      expect(byDefault, `${key}: default`).toBe(shown(defaults[key], 'none'));
      expect(staging, `${key}: staging in cdk.json`).toBe(shown(context.staging[key], '–'));
      expect(production, `${key}: production in cdk.json`).toBe(shown(context.production[key], '–'));
    }
  });
});
