import { isLoopbackHost } from '../server/loopback.js';

/** Binding a gateway server (proxy, emulator) to an interface other machines can reach, refused unless asked for. */
export class RemoteBindingError extends Error {
  constructor(server: string, host: string) {
    super(
      `${server}: refusing to listen on ${host}, which other machines can reach: pass --allow-remote to accept that, or bind to 127.0.0.1`,
    );
    this.name = 'RemoteBindingError';
  }
}

/**
 * Check where a gateway server will listen. Loopback is always fine (and the server then answers
 * only loopback `Host` values, against DNS rebinding); any other interface needs `allowRemote`,
 * and then returns the warning to print (its clients' API keys and bodies cross the network in
 * clear unless a TLS terminator sits in front).
 */
export function checkListenHost(server: string, host: string, allowRemote: boolean): { warning: string | null } {
  if (isLoopbackHost(host)) return { warning: null };
  if (!allowRemote) throw new RemoteBindingError(server, host);
  return {
    warning: `${server}: listening on ${host}: any machine that reaches it can use it; requests and API keys travel in clear HTTP`,
  };
}

/**
 * True when a request's `Host` header names this machine (`127.0.0.1`, `localhost`, `[::1]`, any
 * port): a web page whose domain was rebound to 127.0.0.1 sends its own name and is refused.
 */
export function isLoopbackHostHeader(host: string | null | undefined): boolean {
  if (!host) return false;
  const trimmed = host.trim();
  const name = trimmed.startsWith('[') ? trimmed.slice(0, trimmed.indexOf(']') + 1 || undefined) : trimmed.split(':')[0]!;
  return isLoopbackHost(name);
}
