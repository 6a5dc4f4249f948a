/** Spaces, control characters and backslashes: the URL parser drops or rewrites them, so the URL stored would not be the URL given. */
const UNPARSED = /[\p{Cc}\s\\]/u;
/** An authority with user info: `https://user@host`, `https://:pw@host`. */
const USER_INFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i;
/** A host the URL parser wrote as an IPv4 address: it writes every IPv4 form (`0x7f.1`, `2130706433`, `0177.0.0.1`) as dotted decimal. */
const IPV4_LITERAL = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * What is wrong with a webhook URL, or null. Checked where it enters (registration, change),
 * on the text alone; where it leads is checked again at every delivery, by the guarded fetch
 * that resolves the name and refuses special-use addresses:
 *
 * - at most 2 000 characters, with no space, control character or backslash;
 * - `https`, or `http` to a host the operator allows on their own network (`privateHosts`,
 *   OUTBOUND_PRIVATE_HOSTS);
 * - no user info, no fragment;
 * - a host name with a dot, not an IP address in any form (a literal cannot be checked by a
 *   name's certificate, and an address is where SSRF hides), nor `localhost` or a `.localhost`
 *   name, unless the operator lists that host in `privateHosts`.
 */
export function webhookUrlProblem(url: string, privateHosts: ReadonlySet<string>): string | null {
  if (url.length === 0) return 'url must not be empty';
  if (url.length > 2_000) return 'url must be at most 2000 characters';
  if (UNPARSED.test(url)) return 'url must not hold spaces, control characters or backslashes';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url must be an absolute https URL';
  }
  if (parsed.href.length > 2_000) return 'url must be at most 2000 characters';
  const host = parsed.hostname.toLowerCase();
  const operatorAllowed = privateHosts.has(host);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && operatorAllowed)) {
    return operatorAllowed ? 'url must use https or http' : 'url must use https (http only for a host the operator allows)';
  }
  if (parsed.username !== '' || parsed.password !== '' || USER_INFO.test(url)) return 'url must not hold user info (user:password@)';
  if (url.includes('#')) return 'url must not have a fragment';
  if (operatorAllowed) return null;
  if (host.startsWith('[') || IPV4_LITERAL.test(host)) return 'url must name a host, not an IP address';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'url must not name localhost';
  if (!host.includes('.') || host.endsWith('.')) return 'url must name a fully qualified host (with a dot, without a trailing one)';
  return null;
}
