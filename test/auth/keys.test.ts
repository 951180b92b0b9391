/** Key material: format, checksum and hashing, property-based with fast-check. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkKey, generateKey, hashKey, KEY_PATTERN } from '../../lib/auth/keys.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const stage = fc.constantFrom('production' as const, 'staging' as const);

describe('API keys', () => {
  it('are pet_live_/pet_test_, 30 random base62 characters and a 6-character checksum', () => {
    expect(generateKey('production')).toMatch(/^pet_live_[0-9A-Za-z]{36}$/);
    expect(generateKey('staging')).toMatch(/^pet_test_[0-9A-Za-z]{36}$/);
  });

  it('every generated key verifies, for its own environment', () => {
    fc.assert(
      fc.property(stage, (s) => {
        const key = generateKey(s);
        expect(KEY_PATTERN.test(key)).toBe(true);
        expect(checkKey(key)).toEqual({ ok: true, stage: s });
      }),
      { numRuns: 500 },
    );
  });

  it('every single-character change of a key fails the check', () => {
    fc.assert(
      fc.property(stage, fc.nat(), fc.nat(), (s, position, replacement) => {
        const key = generateKey(s);
        const i = 9 + (position % 36); // the random part and the checksum
        const original = key.charAt(i);
        const candidates = ALPHABET.replace(original, '');
        const changed = key.slice(0, i) + candidates[replacement % candidates.length] + key.slice(i + 1);
        expect(checkKey(changed).ok).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it('anything not shaped like a key is malformed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        fc.pre(!KEY_PATTERN.test(text));
        expect(checkKey(text)).toEqual({ ok: false, reason: 'malformed' });
      }),
    );
    expect(checkKey(`${generateKey('production')} `)).toEqual({ ok: false, reason: 'malformed' });
    expect(checkKey(generateKey('production').replace('pet_live_', 'pet_prod_'))).toEqual({ ok: false, reason: 'malformed' });
  });

  it('hashes with SHA-256 (hex), the same key always to the same hash', () => {
    const key = generateKey('production');
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(key)).toBe(hashKey(key));
    expect(hashKey(key)).not.toBe(hashKey(generateKey('production')));
  });

  it('draws the random part evenly from all 62 characters', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) for (const c of generateKey('production').slice(9, 39)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 60,000 draws: about 968 each; a biased modulo would push the first 8 characters far above the rest.
    for (const n of counts.values()) expect(n).toBeGreaterThan(700);
    for (const n of counts.values()) expect(n).toBeLessThan(1_250);
  });
});
