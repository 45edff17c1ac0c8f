/** Proxies in front of the node: one that can answer some requests itself, one that can cut connections. */
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { connect, createServer, type Socket } from "node:net";

export interface Seen {
  method: string;
  path: string;
  body: string;
}

export type Intercept = (seen: Seen) => { status: number; headers?: Record<string, string>; body: string } | undefined;

/**
 * An HTTP proxy that records every request and lets `intercept` answer one instead of the node (a
 * 503, a lost lease), or pass it on when it returns undefined.
 */
export class HttpProxy {
  readonly seen: Seen[] = [];
  intercept: Intercept = () => undefined;
  /** When true for a request, it reaches the node but its answer is replaced by a 503 (an outcome the caller cannot know). */
  loseAnswer: (seen: Seen) => boolean = () => false;
  private readonly server: Server;

  private constructor(
    private readonly upstream: string,
    readonly url: string,
    server: Server,
  ) {
    this.server = server;
  }

  static async start(upstream: string): Promise<HttpProxy> {
    let proxy: HttpProxy | undefined = undefined;
    const server = createHttpServer((req, res) => {
      void proxy!.handle(req).then(
        ({ status, headers, body }) => {
          res.writeHead(status, headers);
          res.end(body);
        },
        (error: unknown) => {
          res.writeHead(502);
          res.end(String(error));
        },
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    proxy = new HttpProxy(upstream, `http://127.0.0.1:${port}`, server);
    return proxy;
  }

  count(method: string, pathPart: string): number {
    return this.seen.filter((s) => s.method === method && s.path.includes(pathPart)).length;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) {
      chunks.push(chunk as Buffer);
    }
    const seen = { method: req.method ?? "GET", path: req.url ?? "/", body: Buffer.concat(chunks).toString("utf8") };
    this.seen.push(seen);
    const own = this.intercept(seen);
    if (own) {
      return { status: own.status, headers: { "Content-Type": "application/json", ...own.headers }, body: own.body };
    }
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "authorization", "accept"]) {
      const value = req.headers[name];
      if (typeof value === "string") {
        headers[name] = value;
      }
    }
    const answer = await fetch(this.upstream + seen.path, {
      method: seen.method,
      headers,
      body: seen.body ? seen.body : null,
    });
    const answerHeaders: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== "content-length" && name !== "transfer-encoding" && name !== "connection") {
        answerHeaders[name] = value;
      }
    });
    const body = await answer.text();
    if (this.loseAnswer(seen)) {
      return { status: 503, headers: { "Content-Type": "application/json", "Retry-After": "0" }, body: '{"error":"unavailable","message":"answer lost"}' };
    }
    return { status: answer.status, headers: answerHeaders, body };
  }
}

/** A TCP proxy whose open connections the test can cut, as a failing network would. */
export class TcpProxy {
  accepted = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server;
  readonly url: string;

  private constructor(server: ReturnType<typeof createServer>, port: number) {
    this.server = server;
    this.url = `http://127.0.0.1:${port}`;
  }

  static async start(upstreamPort: number): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined = undefined;
    const server = createServer((client) => {
      const upstream = connect(upstreamPort, "127.0.0.1");
      proxy!.accepted += 1;
      proxy!.sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const forget = (): void => {
        proxy!.sockets.delete(client);
        proxy!.sockets.delete(upstream);
        client.destroy();
        upstream.destroy();
      };
      client.on("close", forget).on("error", forget);
      upstream.on("close", forget).on("error", forget);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const address = server.address();
    proxy = new TcpProxy(server, typeof address === "object" && address ? address.port : 0);
    return proxy;
  }

  /** Drops every open connection at once. */
  cut(): void {
    for (const socket of this.sockets) {
      socket.destroy();
    }
    this.sockets.clear();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((r) => this.server.close(() => r()));
  }
}
