import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the test server received. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP server on loopback whose answers the test scripts; it records every request. */
export interface TestServer {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

type Handler = (req: Seen, res: ServerResponse) => void | Promise<void>;

/** Starts a node:http server on an ephemeral loopback port. */
export async function startServer(handler: Handler): Promise<TestServer> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(s);
      Promise.resolve(handler(s, res)).catch((err: unknown) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON answer. */
export function send(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  res.writeHead(status, { 'content-type': contentType, 'x-request-id': 'req-1' });
  res.end(JSON.stringify(body));
}
