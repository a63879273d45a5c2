import { once } from 'node:events';
import { connect, createServer, type Server } from 'node:net';

function listenAnywhere(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/**
 * count distinct TCP ports free on 127.0.0.1 right now, for child processes to listen on. All are held
 * until every one is found: a port released early could be handed out twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i += 1) servers.push(await listenAnywhere());
    return servers.map((server) => {
      const address = server.address();
      if (typeof address !== 'object' || !address) throw new Error('no port');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** One TCP port free on 127.0.0.1 right now; for two or more, freePorts. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/** Whether something accepts TCP connections on the port right now. */
export async function tcpAccepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  const socket = connect(port, host);
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}
