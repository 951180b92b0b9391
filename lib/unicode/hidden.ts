/**
 * Characters a reader cannot see as what they are: control characters, invisible ones, and combining marks with
 * nothing to stand on. A category's name refuses them (categories/schema.ts), so do the admin CLI's key labels and
 * reasons (cli/args.ts), and the CLI never prints one it was given raw (`quoted`): an ESC would drive the operator's
 * terminal, a bidirectional control would reverse what follows it.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: the rule is exactly "no control characters"
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
/**
 * What a reader cannot see: format characters (Cf: zero-width spaces and joiners, bidirectional controls, the BOM),
 * the rest of Default_Ignorable_Code_Point (variation selectors, the Hangul fillers U+115F, U+1160, U+3164 and
 * U+FFA0, …), the line and paragraph separators, and U+2800 (Braille blank), a pattern with no dots that displays as
 * a blank. A text holding one would look like another, or display reversed.
 */
export const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\u2800]/u;

const MARK = /\p{M}/u;
const MARKS_AND_SPACES = /^[\p{M}\p{White_Space}]+$/u;

/** `U+202E`: a character named by its code point, as the messages that refuse one show it. */
export const codePointName = (ch: string) => `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * What keeps `s` from showing as what it is, named: its first control or invisible character, or, for a text of
 * combining marks alone (white space at most between them), which has nothing to stand on and shows blank, its first
 * mark. Undefined when there is none.
 */
export function hiddenCharacter(s: string): { kind: 'control' | 'invisible' | 'marks-only'; name: string } | undefined {
  const control = CONTROL.exec(s)?.[0];
  if (control !== undefined) return { kind: 'control', name: codePointName(control) };
  const invisible = INVISIBLE.exec(s)?.[0];
  if (invisible !== undefined) return { kind: 'invisible', name: codePointName(invisible) };
  const mark = MARKS_AND_SPACES.test(s) ? MARK.exec(s)?.[0] : undefined;
  return mark === undefined ? undefined : { kind: 'marks-only', name: codePointName(mark) };
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
