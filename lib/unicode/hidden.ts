/** Characters a reader cannot see as what they are; `quoted` escapes them (an ESC would drive a terminal, a bidi control reverse text). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the rule is exactly "no control characters"
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
/** Format characters (Cf), the rest of Default_Ignorable_Code_Point, line and paragraph separators, U+2800 (Braille blank). */
export const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\u2800]/u;

const MARK = /\p{M}/u;
const MARKS_AND_SPACES = /^[\p{M}\p{White_Space}]+$/u;

/** `U+202E`, as the messages that refuse a character name it. */
export const codePointName = (ch: string) => `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** `s`'s first control or invisible character, or the first mark of a text of marks alone (it shows blank). */
export function hiddenCharacter(s: string): { kind: 'control' | 'invisible' | 'marks-only'; name: string } | undefined {
  const control = CONTROL.exec(s)?.[0];
  if (control !== undefined) return { kind: 'control', name: codePointName(control) };
  const invisible = INVISIBLE.exec(s)?.[0];
  if (invisible !== undefined) return { kind: 'invisible', name: codePointName(invisible) };
  const mark = MARKS_AND_SPACES.test(s) ? MARK.exec(s)?.[0] : undefined;
  return mark === undefined ? undefined : { kind: 'marks-only', name: codePointName(mark) };
}

const HIDDEN = new RegExp(`${CONTROL.source}|${INVISIBLE.source}`, 'gu');

/** `value` as a JSON string with every control and invisible character escaped: safe to print to a terminal. */
export function quoted(value: string): string {
  return JSON.stringify(value).replace(HIDDEN, (ch) => {
    const code = ch.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
