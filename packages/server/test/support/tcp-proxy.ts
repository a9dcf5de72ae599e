import net from 'node:net';

/**
 * A TCP proxy to a server (PostgreSQL, say) that a test can cut: while cut, every connection through it
 * is closed and new ones are closed as they come, as if the server were gone; restored, it forwards again.
 */
export interface TcpProxy {
  port: number;
  cut(): void;
  restore(): void;
  /** How many connections it has closed as they came while cut (each a failed attempt of a client). */
  refused(): number;
  close(): Promise<void>;
}

export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let down = false;
  let refused = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) {
      refused += 1;
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: () => {
      down = true;
      for (const socket of open) socket.destroy();
    },
    restore: () => {
      down = false;
    },
    refused: () => refused,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
