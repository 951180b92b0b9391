/**
 * Characters a reader cannot see as what they are: control characters, and invisible ones. A category's name
 * refuses them (categories/schema.ts), so do the admin CLI's key labels and reasons (cli/args.ts), and the CLI never
 * prints one it was given raw (`quoted`): an ESC would drive the operator's terminal, a bidirectional control would
 * reverse what follows it.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: the rule is exactly "no control characters"
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
/**
 * What a reader cannot see: format characters (Cf: zero-width spaces and joiners, bidirectional controls, the BOM),
 * the rest of Default_Ignorable_Code_Point (variation selectors, Hangul fillers, …) and the line and paragraph
 * separators. A text holding one would look like another, or display reversed.
 */
export const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u;

/** `U+202E`: a character named by its code point, as the messages that refuse one show it. */
export const codePointName = (ch: string) => `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** The first control or invisible character of `s`, named, or undefined when it has none. */
export function hiddenCharacter(s: string): { kind: 'control' | 'invisible'; name: string } | undefined {
  const control = CONTROL.exec(s)?.[0];
  if (control !== undefined) return { kind: 'control', name: codePointName(control) };
  const invisible = INVISIBLE.exec(s)?.[0];
  return invisible === undefined ? undefined : { kind: 'invisible', name: codePointName(invisible) };
}

const HIDDEN = new RegExp(`${CONTROL.source}|${INVISIBLE.source}`, 'gu');

/**
 * `value` in double quotes, as JSON writes a string, with every control and invisible character written as its
 * escape (`\u001b`, `\u202e`, `\u{e0001}`) rather than itself: safe to print to a terminal whatever it holds.
 */
export function quoted(value: string): string {
  return JSON.stringify(value).replace(HIDDEN, (ch) => {
    const code = ch.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
