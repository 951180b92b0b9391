/** API keys: a prefix, 30 random base62 characters and a CRC32 that refuses typos without a read; only the SHA-256 is stored. */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Stage } from '../stacks.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
export const KEY_PREFIX: Record<Stage, string> = { production: 'pet_live_', staging: 'pet_test_' };
export const KEY_PATTERN = /^pet_(live|test)_[0-9A-Za-z]{36}$/;

/** What WAF looks for in the Authorization header to leave a request out of its keyless count. */
export function wellFormedKeyPattern(stage: Stage): string {
  return `${KEY_PREFIX[stage]}[0-9A-Za-z]{36}`;
}

/** Uniform base62 characters: bytes of 248 and above are discarded so that no character is more likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  do {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, '0');
}

export function checksum(body: string): string {
  return base62(crc32(body) >>> 0, CHECKSUM_LENGTH);
}

export function generateKey(stage: Stage): string {
  const body = KEY_PREFIX[stage] + randomBase62(RANDOM_LENGTH);
  return body + checksum(body);
}

export type KeyCheck = { ok: true; stage: Stage } | { ok: false; reason: 'malformed' | 'checksum' };

export function checkKey(key: string): KeyCheck {
  const match = KEY_PATTERN.exec(key);
  if (!match) return { ok: false, reason: 'malformed' };
  const body = key.slice(0, -CHECKSUM_LENGTH);
  if (checksum(body) !== key.slice(-CHECKSUM_LENGTH)) return { ok: false, reason: 'checksum' };
  return { ok: true, stage: match[1] === 'live' ? 'production' : 'staging' };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The public name of a key, shown by the CLI and written in logs instead of the key. */
export function newKeyId(): string {
  return `key_${randomBase62(16)}`;
}
