/**
 * The command modules as the dispatcher reads them: what a new command must declare so that the usage text documents
 * it and its flags reach it.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS, USAGE } from '../../lib/cli/dispatch.js';

describe('petstore CLI: command modules', () => {
  it('have distinct names of one word, or a group and a word', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z]+(-[a-z]+)*( [a-z]+(-[a-z]+)*)?$/);
  });

  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s is listed in the usage text with every flag it takes', (_, command) => {
    const line = USAGE.split('\n').find((l) => l.startsWith(`  ${command.name} `));
    expect(line).toBe(`  ${command.name} ${command.synopsis}`);
    for (const flag of Object.keys(command.flags)) expect(command.synopsis).toContain(`--${flag}`);
  });
});
