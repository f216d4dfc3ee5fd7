import net from 'node:net';

/** Whether something could listen on the port on 127.0.0.1 right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a process started next (a platform,
 * a database). Picked below the kernel's ephemeral range (32768-60999 on Linux): a port the OS
 * hands out for listen(0) or for an outgoing connection is in that range and could be taken by
 * anyone in the seconds before the process binds it (a platform binds after its database starts).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000');
}
