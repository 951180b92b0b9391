/**
 * What a handler's bundle is built from: the product files its imports reach (reach.ts, esbuild's metafile). The
 * ceilings are the counts as they stand, so that a bundle reaching more fails; lower them as the request path sheds
 * files (the goal: createCategory 50, getPetById 40). At fc33217 they were 68 and 59; at a78387b 67 and 53.
 */
import { describe, expect, it } from 'vitest';
import { reachOf } from './reach.js';

const CEILINGS: Record<string, number> = {
  'functions/authorizer.ts': 16,
  'functions/create-category.ts': 60,
  'functions/get-pet-by-id.ts': 44,
  'functions/get-rate-limit-status.ts': 45,
  'functions/list-categories.ts': 49,
  'functions/list-store-orders.ts': 44,
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
