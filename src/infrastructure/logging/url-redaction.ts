import { isSecretKey, REDACTED, redactText } from '../../domain/audit/redaction';

/**
 * Query parameters whose value is a credential although their name does not say so to
 * isSecretKey: OAuth's authorization code and PKCE verifier (RFC 6749, RFC 7636), assertions
 * (RFC 7521), device codes (RFC 8628), and the short names signed links use. `state` is not
 * one: the client sends it back and forth in the clear by design.
 */
const SECRET_PARAMETERS: ReadonlySet<string> = new Set([
  'code',
  'code_verifier',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'client_secret',
  'client_assertion',
  'assertion',
  'device_code',
  'password',
  'key',
  'sig',
  'otp',
]);

/** A URL inside a value (a redirect target, say) is redacted too, this many levels down. */
const MAX_NESTED_URLS = 2;

export function isSecretParameter(name: string): boolean {
  return SECRET_PARAMETERS.has(name.toLowerCase()) || isSecretKey(name);
}

/**
 * A URL as a log line may show it, absolute or a request's path and query: each secret
 * parameter's value is [REDACTED] (isSecretParameter), other values have secret shapes
 * masked and URLs in them redacted the same way, and a fragment is dropped for [REDACTED]
 * (the implicit flow's tokens travel there). The one redaction of URLs for every log line:
 * request logs (loggableUrl) and messages that name a URL.
 */
export function redactUrl(url: string, depth = 0): string {
  const hash = url.indexOf('#');
  const withoutFragment = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 || hash === url.length - 1 ? '' : `#${REDACTED}`;
  const start = withoutFragment.indexOf('?');
  if (start === -1) return `${redactText(withoutFragment)}${fragment}`;
  return `${redactText(withoutFragment.slice(0, start))}?${redactQuery(withoutFragment.slice(start + 1), depth)}${fragment}`;
}

/** A query string, without its `?`, parsed as a browser would, each value shown decoded. */
function redactQuery(query: string, depth: number): string {
  return [...new URLSearchParams(query)]
    .map(([name, value]) => `${redactText(name)}=${isSecretParameter(name) ? REDACTED : redactValue(value, depth)}`)
    .join('&');
}

function redactValue(value: string, depth: number): string {
  if (depth < MAX_NESTED_URLS && (value.includes('?') || value.includes('#')) && URL.canParse(value)) return redactUrl(value, depth + 1);
  return redactText(value);
}
