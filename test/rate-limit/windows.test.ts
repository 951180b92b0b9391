/**
 * The window and header arithmetic on its own, without DynamoDB: fixed UTC windows, what counts in them, which
 * window the X-RateLimit headers show, which one blocks, and Retry-After.
 */
import { describe, expect, it } from 'vitest';
import { blocking, DAY, MINUTE, rateLimitHeaders, retryAfter, tightest, views, windowStarts } from '../../lib/rate-limit/windows.js';

const DAY_START = Date.UTC(2036, 2, 10) / 1000;
const NOW = DAY_START + 12 * 3600 + 34 * 60 + 15; // 12:34:15 UTC
const limits = { perMinute: 60, perDay: 1000 };

describe('windowStarts', () => {
  it('aligns the minute and the day to UTC', () => {
    expect(windowStarts(NOW)).toEqual({ minuteStart: NOW - 15, dayStart: DAY_START });
    expect(windowStarts(DAY_START)).toEqual({ minuteStart: DAY_START, dayStart: DAY_START });
    expect(windowStarts(DAY_START - 1)).toEqual({ minuteStart: DAY_START - MINUTE, dayStart: DAY_START - DAY });
  });
});

describe('views', () => {
  it('gives limit, remaining (never negative) and reset of both windows', () => {
    const v = views({ minuteStart: NOW - 15, minuteCount: 61, dayStart: DAY_START, dayCount: 10 }, limits);
    expect(v.minute).toEqual({ name: 'minute', limit: 60, remaining: 0, reset: NOW - 15 + MINUTE });
    expect(v.day).toEqual({ name: 'day', limit: 1000, remaining: 990, reset: DAY_START + DAY });
  });
});

describe('tightest and blocking', () => {
  const at = (minuteCount: number, dayCount: number) =>
    views({ minuteStart: NOW - 15, minuteCount, dayStart: DAY_START, dayCount }, limits);

  it('shows the window with fewer requests left, the day on a tie', () => {
    expect(tightest(at(10, 10)).name).toBe('minute');
    expect(tightest(at(0, 990)).name).toBe('day');
    expect(tightest(at(50, 990)).name).toBe('day'); // 10 left in both
  });

  it('blocks by the used-up window that resets last, and by none while both have room', () => {
    expect(blocking(at(59, 10))).toBeUndefined();
    expect(blocking(at(60, 10))?.name).toBe('minute');
    expect(blocking(at(10, 1000))?.name).toBe('day');
    expect(blocking(at(60, 1000))?.name).toBe('day');
  });
});

describe('rateLimitHeaders', () => {
  it('describes the tightest window in X-RateLimit-* and both in the IETF fields', () => {
    const v = views({ minuteStart: NOW - 15, minuteCount: 1, dayStart: DAY_START, dayCount: 1 }, limits);
    expect(rateLimitHeaders(v, NOW)).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '59',
      'X-RateLimit-Reset': String(NOW - 15 + MINUTE),
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      RateLimit: `"minute";r=59;t=45, "day";r=999;t=${DAY_START + DAY - NOW}`,
    });
  });

  it('during a ban shows nothing left and the ban end as every reset', () => {
    const v = views({ minuteStart: NOW - 15, minuteCount: 1, dayStart: DAY_START, dayCount: 1 }, limits);
    const headers = rateLimitHeaders(v, NOW, NOW + 900);
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers['X-RateLimit-Reset']).toBe(String(NOW + 900));
    expect(headers.RateLimit).toBe('"minute";r=0;t=900, "day";r=0;t=900');
  });
});

describe('retryAfter', () => {
  it('is whole seconds until the reset, at least 1', () => {
    expect(retryAfter(NOW + 45, NOW)).toBe('45');
    expect(retryAfter(NOW + 0.2, NOW)).toBe('1');
    expect(retryAfter(NOW, NOW)).toBe('1');
    expect(retryAfter(NOW - 5, NOW)).toBe('1');
  });
});
