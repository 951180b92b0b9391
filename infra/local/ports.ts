/** Whether the ports `npm start` needs are free, checked before anything starts, so a taken one is one clear line. */
import { createServer } from 'node:net';

export interface WantedPort {
  port: number;
  host: string;
  variable: string;
}

function inUse({ port, host }: WantedPort): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(true) : reject(error)));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

export async function takenPortLine(ports: readonly WantedPort[]): Promise<string | undefined> {
  for (const wanted of ports) {
    if (wanted.port !== 0 && (await inUse(wanted)))
      return `npm start: port ${wanted.port} on ${wanted.host} is already in use: stop what listens there, or set ${wanted.variable} to a free port`;
  }
  return undefined;
}
