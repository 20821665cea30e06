/** What `Authorization: Bearer <token>` can carry (RFC 6750 `b64token`), and what the server's check accepts. */
const TOKEN_PATTERN = /^[A-Za-z0-9._~+/-]+=*$/;
const MIN_TOKEN_LENGTH = 16;

/**
 * Why `token` cannot work as a bearer token, or null when it can. A token with a space or
 * other punctuation would start the server yet never authenticate a single request.
 */
export function serveTokenProblem(token: string): string | null {
  if (token.length < MIN_TOKEN_LENGTH) return `the bearer token must be at least ${MIN_TOKEN_LENGTH} characters long`;
  if (!TOKEN_PATTERN.test(token)) {
    return 'the bearer token may contain only letters, digits and - . _ ~ + / (optionally ending in =); generate one with `openssl rand -hex 32`';
  }
  return null;
}
