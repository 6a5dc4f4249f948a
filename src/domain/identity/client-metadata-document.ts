import { checkClientMetadata, CLIENT_LIMITS, type ClientRegistration, OAuthRefusedError } from './oauth';

/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP
 * 2026-07-28 "Client Registration"): a client names itself by an https URL, and the JSON
 * document at that URL is its registration. The rules on the URL and on the document are
 * here; fetching it is the application's (ClientMetadataDocuments), over a guarded fetch.
 */

export const CLIENT_METADATA_LIMITS = {
  /** The URL, as long as any other URL a client registers. */
  urlLength: CLIENT_LIMITS.urlLength,
  /** The document: a registration is a few hundred bytes; past this it is refused unread. */
  documentBytes: 5 * 1024,
  /** A document's fields, at most: a registration needs a handful. */
  fields: 50,
} as const;

/**
 * Whether a client_id is meant as a URL (a scheme, then a colon) rather than a registered
 * client's UUID: such ids are checked as metadata document URLs, never looked up.
 */
export function isUrlClientId(clientId: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(clientId);
}

/**
 * What is wrong with a client_id as a metadata document URL, or null: https, a host, a path
 * other than `/` with no `.` or `..` segment, and no user info, query or fragment (the draft
 * §3 allows a query but advises against it; Bridle refuses it, so one document has one id).
 */
export function clientIdUrlProblem(clientId: string): string | null {
  if (clientId.length > CLIENT_METADATA_LIMITS.urlLength) {
    return `a URL client_id must be at most ${CLIENT_METADATA_LIMITS.urlLength} characters`;
  }
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'a URL client_id must be an absolute https URL';
  }
  if (url.protocol !== 'https:') return 'a URL client_id must use https';
  if (url.username !== '' || url.password !== '' || /^https:\/\/[^/]*@/i.test(clientId)) return 'a URL client_id must not hold user info';
  if (clientId.includes('#')) return 'a URL client_id must not have a fragment';
  if (clientId.includes('?')) return 'a URL client_id must not have a query';
  if (url.pathname === '/' || url.pathname === '') return 'a URL client_id must have a path, e.g. https://app.example/client.json';
  if (/\/(\.|%2e){1,2}(\/|$)/i.test(clientId.slice('https://'.length))) return 'a URL client_id must not have . or .. path segments';
  if (url.href !== clientId) return 'a URL client_id must be written in its normal form (lower-case scheme and host, no default port)';
  return null;
}

/** Fields that would make the client confidential: a public client's document never holds them. */
const SECRET_FIELDS = ['client_secret', 'client_secret_expires_at', 'jwks', 'jwks_uri'] as const;

/**
 * A fetched metadata document as the client's registration: a JSON object whose client_id is
 * the URL it came from, character for character; a public client (token endpoint auth
 * `none`, no secret, no keys); a client_name; redirect URIs by the rules of any registered
 * client (checkClientMetadata). @throws OAuthRefusedError (invalid_client)
 */
export function clientMetadataDocument(url: string, document: unknown): ClientRegistration {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw refused('the client metadata document is not a JSON object');
  }
  const fields = document as Record<string, unknown>;
  if (Object.keys(fields).length > CLIENT_METADATA_LIMITS.fields) {
    throw refused(`the client metadata document has more than ${CLIENT_METADATA_LIMITS.fields} fields`);
  }
  if (fields.client_id !== url) throw refused("the client metadata document's client_id is not the URL it was fetched from");
  const secret = SECRET_FIELDS.find((name) => name in fields);
  if (secret) throw refused(`the client metadata document names ${secret}: a client identified by URL is public and holds no secret`);
  const authMethod = fields.token_endpoint_auth_method;
  if (authMethod !== undefined && authMethod !== 'none') {
    throw refused('the client metadata document must have token_endpoint_auth_method none');
  }
  if (typeof fields.client_name !== 'string' || fields.client_name.trim() === '') {
    throw refused('the client metadata document has no client_name');
  }
  const strings = (name: string): string[] | undefined => {
    const value = fields[name];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.length > 20 || value.some((item) => typeof item !== 'string')) {
      throw refused(`the client metadata document's ${name} is not a list of strings`);
    }
    return value as string[];
  };
  const text = (name: string): string | undefined => {
    const value = fields[name];
    if (value !== undefined && typeof value !== 'string') throw refused(`the client metadata document's ${name} is not a string`);
    return value;
  };
  const redirectUris = strings('redirect_uris');
  if (!redirectUris) throw refused('the client metadata document has no redirect_uris');
  try {
    return checkClientMetadata({
      redirect_uris: redirectUris,
      client_name: text('client_name'),
      client_uri: text('client_uri'),
      grant_types: strings('grant_types'),
      response_types: strings('response_types'),
      software_id: text('software_id'),
      software_version: text('software_version'),
    });
  } catch (error) {
    if (error instanceof OAuthRefusedError) throw refused(`the client metadata document is refused: ${error.message}`);
    throw error;
  }
}

function refused(description: string): OAuthRefusedError {
  return new OAuthRefusedError('invalid_client', description);
}
