/**
 * DynamoDB Local stays on the machine: it listens on 127.0.0.1 only (the jar itself would listen on every
 * interface), and a data directory is readable by its owner alone. The ports picked for later listening are out of
 * the ephemeral range.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort, makePrivateDir } from '../../infra/local/dynamodb-local.js';

/** The local addresses of the sockets listening on `port`, read from the kernel's tables (hex, as /proc has them). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // local_address is "ADDRESS:PORT"; state 0A is LISTEN.
      .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A')
      .map((fields) => fields[1]?.split(':')[0] ?? ''),
  );
}

const IPV4_LOOPBACK = '0100007F';
const IPV4_MAPPED_LOOPBACK = '0000000000000000FFFF00000100007F';

const work = mkdtempSync(join(tmpdir(), 'petstore-dynamodb-local-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('DynamoDB Local', () => {
  it('picks ports below the ephemeral range, which no connection takes as its source port, each free to listen on and none twice', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
    }
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });

  it("listens on the loopback interface only (the test run's own DynamoDB Local, started like npm start's)", () => {
    const port = Number(new URL(inject('dynamoEndpoint')).port);
    const addresses = listeningAddresses(port);
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect([IPV4_LOOPBACK, IPV4_MAPPED_LOOPBACK]).toContain(address);
  });

  it('runs the launcher compiled once, from node_modules/.cache, wherever javac is (its source otherwise)', () => {
    const port = `${new URL(inject('dynamoEndpoint')).port}`;
    const java = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        } catch {
          return []; // a process that ended meanwhile
        }
      })
      .find((args) => args.some((arg) => arg.includes('LoopbackDynamoDBLocal')) && args.includes(port));
    const javac = spawnSync('javac', ['-version']).status === 0;
    expect(java?.some((arg) => arg.includes('.cache/dynamodb-local-launcher/'))).toBe(javac);
    expect(java?.some((arg) => arg.endsWith('LoopbackDynamoDBLocal.java'))).toBe(!javac);
  });

  it('keeps its data directory, and the .data folder above it, private to their owner', () => {
    const data = join(work, '.data');
    const dir = join(data, 'dynamodb');
    makePrivateDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(data).mode & 0o777).toBe(0o700);
  });
});
