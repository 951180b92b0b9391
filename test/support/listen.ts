/** A test's own server (a fake AWS endpoint, a proxy, a DynamoDB that never answers) on a free loopback port. */
import type { Server } from 'node:net';

/** Starts `server` on a free port of 127.0.0.1 and gives that port. */
export async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the server listens on no TCP port');
  return address.port;
}
