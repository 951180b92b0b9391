/** What the admin CLI takes from the environment in local mode (adminCliConfig in lib/config.ts). */
import { describe, expect, it } from 'vitest';
import { adminCliConfig } from '../../lib/config.js';

describe('petstore CLI: local settings from the environment', () => {
  it('needs no STAGE, and defaults to DynamoDB Local on port 8000 and the petstore- tables', () => {
    expect(adminCliConfig({})).toEqual({
      dynamoEndpoint: 'http://127.0.0.1:8000',
      endpointFrom: 'default',
      dataDir: '.data/dynamodb',
      tablePrefix: 'petstore-',
    });
  });

  it('takes DYNAMODB_ENDPOINT over DYNAMODB_PORT, and counts an empty variable as unset', () => {
    expect(adminCliConfig({ DYNAMODB_ENDPOINT: 'http://db:9000', DYNAMODB_PORT: '8001' }).dynamoEndpoint).toBe('http://db:9000');
    expect(adminCliConfig({ DYNAMODB_ENDPOINT: '', DYNAMODB_PORT: '8001' }).dynamoEndpoint).toBe('http://127.0.0.1:8001');
    expect(adminCliConfig({ PETSTORE_TABLE_PREFIX: 't1-' }).tablePrefix).toBe('t1-');
  });

  it('names a malformed variable', () => {
    expect(() => adminCliConfig({ DYNAMODB_ENDPOINT: 'not a url' })).toThrow(/DYNAMODB_ENDPOINT must be a URL/);
    expect(() => adminCliConfig({ DYNAMODB_PORT: 'eight' })).toThrow(/DYNAMODB_PORT must be a port number/);
    expect(() => adminCliConfig({ PETSTORE_TABLE_PREFIX: 'a b' })).toThrow(/PETSTORE_TABLE_PREFIX/);
  });
});
