/**
 * What a handler's bundle is built from: the product files its imports reach (reach.ts, esbuild's metafile). The
 * ceilings are the counts as they stand, so that a bundle reaching more fails; lower them as the request path sheds
 * files. Issue 34's goal was createCategory 50 and getPetById 40; at fc33217 they were 68 and 59, at a78387b 67 and 53.
 */
import { describe, expect, it } from 'vitest';
import { reachOf } from './reach.js';

const CEILINGS: Record<string, number> = {
  'functions/authorizer.ts': 16,
  'functions/create-category.ts': 50,
  'functions/get-pet-by-id.ts': 36,
  'functions/get-rate-limit-status.ts': 37,
  'functions/list-categories.ts': 43,
  'functions/list-store-orders.ts': 36,
  'functions/usage-sweep.ts': 16,
};

describe('the product files a handler reaches', () => {
  for (const [entry, ceiling] of Object.entries(CEILINGS)) {
    it(`${entry}: at most ${ceiling}, none of API Gateway's tables, the OpenAPI answers or the admin's writes`, async () => {
      const { files } = await reachOf(entry);
      expect(files.length).toBeLessThanOrEqual(ceiling);
      expect(
        files.filter((file) => /^lib\/(api-gateway|openapi|cli)\/|^lib\/auth\/.*admin|^lib\/rate-limit\/unban\.ts$/.test(file)),
      ).toEqual([]);
    });
  }
});
