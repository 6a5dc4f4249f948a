import { EMAIL_MAX_LENGTH } from '../identity/user';

/**
 * Email addresses and domain names in the one form Bridle stores, compares and hands to SMTP
 * (docs/security.md#addresses-in-one-canonical-form).
 *
 * A domain is canonical in the form DNS is asked for it: UTS #46 processing (non-transitional,
 * as the WHATWG URL standard does it: compatibility and case mapping, the ideographic and
 * full-width full stops U+3002, U+FF0E and U+FF61 read as dots, each label that is not ASCII
 * written as its `xn--` A-label, an `xn--` label checked to decode to a valid one), lower case,
 * without a trailing dot, each label letters, digits and inner hyphens. `bücher.de`,
 * `BÜCHER.DE.` and `xn--bcher-kva.de` are all `xn--bcher-kva.de`; a mail server resolves
 * nothing else for any of them. What cannot be read so (an invalid A-label, a character IDNA
 * disallows, an invisible one, an IP address) is no domain.
 *
 * UTS #46 is taken from the JavaScript platform's URL host parser, the global `URL` (Node,
 * Deno and browsers carry it; node:url's domainToASCII is the same code): the domain layer
 * imports nothing, and a mapping table of its own would be a second, older copy of Unicode's.
 */

/** A dot and what UTS #46 maps to one. */
const DOTS = /[.\u3002\uFF0E\uFF61]/;
/** ASCII the URL parser would read as syntax rather than as the name (`%41`, `a\b`, `a/b`, `a@b`…): only letters, digits, `-` and `.` may be written. */
const ASCII_OTHER_THAN_NAME = /[\0-,/:-@[-`{-\x7F]/;
/** Drawn as nothing or as a blank: UTS #46 drops some of these silently, so a name holding one is not the name it looks like. */
const INVISIBLE_OR_BLANK = /[\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
/** A DNS label: letters, digits and inner hyphens, 1 to 63 of them. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const DOMAIN_MAX_LENGTH = 253;
/**
 * A local part as a dot-atom (RFC 5322 atext and dots, and other Unicode, RFC 6532): no white
 * space, no invisible or control character, none of the specials `()<>[]:;@\,"` with which a
 * mailer reads comments, quoted text or a list into a header (so it reads the address checked).
 */
const LOCAL_PART = /^[^\s"(),:;<>@[\\\]\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]{1,64}$/u;
/** `@` and the two characters NFKC reads as one (U+FE6B small, U+FF20 full-width). */
const AT_SIGNS = ['@', '\uFE6B', '\uFF20'];

/**
 * The canonical form of a domain name, or null when it has none. A single label (`localhost`)
 * is a domain here; an address needs two (emailAddress).
 */
export function canonicalDomain(raw: string): string | null {
  const labels = asciiLabels(raw);
  // A numeric top label is an IPv4 address, which the URL parser also makes of `0x7f.1`.
  return labels && !/^\d+$/.test(labels[labels.length - 1]) ? labels.join('.') : null;
}

/**
 * A domain, or a glob of domains (`*.bücher.de`, `mail.competitor。com`), in canonical form:
 * each label without a wildcard as canonicalDomain makes it, each label with one (`*`,
 * `mail-?`) as written, lower-cased, which must then be ASCII letters, digits, `-` and the
 * wildcards. So a glob matches the canonical domains it names however either is spelled.
 */
export function canonicalDomainGlob(raw: string): string | null {
  const labels = raw.trim().split(DOTS);
  if (labels.length > 1 && labels[labels.length - 1] === '') labels.pop();
  const canonical: string[] = [];
  for (const label of labels) {
    if (/[*?]/.test(label)) {
      if (!/^[a-z0-9*?-]{1,63}$/i.test(label)) return null;
      canonical.push(label.toLowerCase());
      continue;
    }
    // Read with an ASCII top label after it: alone, a label of digits would be read as an IPv4 address.
    const ascii = asciiLabels(`${label}.x`);
    if (ascii?.length !== 2) return null;
    canonical.push(ascii[0]);
  }
  const glob = canonical.join('.');
  return glob.length <= DOMAIN_MAX_LENGTH ? glob : null;
}

/** An email address in canonical form (emailAddress). */
export interface EmailAddress {
  /**
   * What is stored for a lead and handed to SMTP: the local part as written (NFKC, case
   * kept: RFC 5321 leaves its case to the receiving server), `@`, the canonical domain.
   */
  readonly address: string;
  /**
   * What is compared (do-not-contact, unsubscribe, a proposal's target against the lead's):
   * the address with its local part lower-cased. Mail servers deliver `Jane@` and `jane@` to
   * one mailbox, so a list that holds one holds both.
   */
  readonly key: string;
  readonly domain: string;
}

/**
 * The canonical form of an email address, or null when `raw` is not one: split at its last
 * `@` (or ＠, ﹫), the local part read NFKC (`ｊａｎｅ` is jane) and refused if it holds white
 * space, an invisible or control character or a header separator (`,;<>"`), the domain
 * canonical (canonicalDomain) and of two labels at least, 254 characters at most in all.
 */
export function emailAddress(raw: unknown): EmailAddress | null {
  if (typeof raw !== 'string') return null;
  const text = raw.trim();
  const at = Math.max(...AT_SIGNS.map((sign) => text.lastIndexOf(sign)));
  if (at <= 0) return null;
  const local = text.slice(0, at).normalize('NFKC');
  const domain = canonicalDomain(text.slice(at + 1));
  if (!domain?.includes('.') || !LOCAL_PART.test(local)) return null;
  const address = `${local}@${domain}`;
  return address.length <= EMAIL_MAX_LENGTH ? { address, key: `${local.toLowerCase()}@${domain}`, domain } : null;
}

/** The comparison key of an email address (EmailAddress.key), or null when `raw` is not one. */
export function emailKey(raw: unknown): string | null {
  return emailAddress(raw)?.key ?? null;
}

/** The labels of a name, each in its DNS form, or null when UTS #46 or DNS refuses it. */
function asciiLabels(raw: string): string[] | null {
  const name = raw.trim();
  if (name === '' || name.length > 1000 || ASCII_OTHER_THAN_NAME.test(name) || INVISIBLE_OR_BLANK.test(name)) return null;
  let host: string;
  try {
    host = new URL(`http://${name}`).hostname;
  } catch {
    return null;
  }
  const domain = host.endsWith('.') ? host.slice(0, -1) : host;
  if (domain.length === 0 || domain.length > DOMAIN_MAX_LENGTH) return null;
  const labels = domain.split('.');
  // An A-label that decodes to ASCII only (`xn--ab-`) is not one (UTS #46 since Unicode 15.1).
  return labels.every((label) => LABEL.test(label) && !(label.startsWith('xn--') && label.endsWith('-'))) ? labels : null;
}
