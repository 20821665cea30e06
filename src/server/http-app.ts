/**
 * The HTTP apps Cachet builds (`createApp`, `createProxyApp`, `createEmulatorApp`) as its public
 * types describe them: Hono apps, typed by the two methods callers use, so that Cachet's
 * declaration files never name hono's types. hono is an optional peer: a project without it, or
 * with `skipLibCheck: false`, must type-check Cachet's declarations without hono's.
 * Serve one with any server that takes a fetch handler (`serve({ fetch: app.fetch })` with
 * @hono/node-server, `Bun.serve`, `Deno.serve`), or mount it in your own Hono app with
 * `parent.mount('/cachet', app.fetch)`.
 */
export interface HttpApp {
  /** The web-standard handler: one request in, its response out. */
  fetch(request: Request, env?: unknown, executionContext?: unknown): Response | Promise<Response>;
  /** Answers a request without a server (tests): a path like `/health` is resolved against `http://localhost`. */
  request(input: string | URL | Request, init?: RequestInit): Response | Promise<Response>;
}
