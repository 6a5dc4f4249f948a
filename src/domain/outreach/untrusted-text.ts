import { canonicalEmail } from './lead';

/**
 * Text a cycle reads that neither Bridle nor the campaign's owner wrote: the lead's name (as
 * imported, often from a scraped list), what the profile look-up found, and the names of
 * other leads in the recent results. The planner's prompt fences it as data (UNTRUSTED
 * blocks); the proposal checks (planning.ts fitProblems) hold whatever it says.
 */
export interface UntrustedText {
  /** Where it sits in the cycle's context: `lead.name`, `lead.profile.headline`, `recent[0].leadName`. */
  readonly field: string;
  readonly text: string;
}

/** The untrusted text of a cycle's context, field by field (empty text left out). */
export function untrustedTexts(input: {
  readonly lead?: { readonly name: string; readonly profile: Readonly<Record<string, unknown>> | null };
  readonly recent: readonly { readonly leadName: string }[];
}): UntrustedText[] {
  const texts: UntrustedText[] = [];
  if (input.lead) {
    texts.push({ field: 'lead.name', text: input.lead.name });
    for (const [key, value] of Object.entries(input.lead.profile ?? {})) {
      if (typeof value === 'string') texts.push({ field: `lead.profile.${key}`, text: value });
    }
  }
  input.recent.forEach((result, i) => texts.push({ field: `recent[${i}].leadName`, text: result.leadName }));
  return texts.filter((entry) => entry.text.trim() !== '');
}

/** The characters an email's local part may have (RFC 5322 atext, and dots). */
const ATEXT = "a-z0-9!#$%&'*+/=?^_`{|}~.-";
/**
 * An email address inside text: a local part of atext and a domain of letters, digits and
 * hyphens, so that what follows it (quotes, a backslash, punctuation) is never part of it.
 */
const EMAIL_IN_TEXT = new RegExp(`[${ATEXT}]+@(?:[a-z0-9-]+\\.)+[a-z]{2,}`, 'gi');
const PROFILE_IN_TEXT = /linkedin\.com\/in\/([A-Za-z0-9\-_%]{3,100})/gi;

/**
 * The contact addresses a text names, canonical: emails lower-cased, without the punctuation
 * a sentence puts around them ('boss@x.example' → boss@x.example); LinkedIn profiles as
 * `https://www.linkedin.com/in/<slug>/`.
 */
export function contactAddresses(text: string): string[] {
  const found = new Set<string>();
  for (const [match] of text.matchAll(EMAIL_IN_TEXT)) {
    const at = match.lastIndexOf('@');
    const local = match.slice(0, at).replace(/^[^a-z0-9]+|[^a-z0-9]+$/gi, '') || match.slice(0, at);
    const email = canonicalEmail(`${local}${match.slice(at)}`);
    if (email) found.add(email);
  }
  for (const match of text.matchAll(PROFILE_IN_TEXT)) found.add(`https://www.linkedin.com/in/${match[1].toLowerCase()}/`);
  return [...found];
}

/**
 * Whether `text` names `address` (as contactAddresses writes it), however cased and
 * whatever punctuation surrounds it; also inside a longer local part (`x.boss@…`), never as
 * the start of a longer domain.
 */
export function mentions(text: string, address: string): boolean {
  const escape = (value: string) => value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const profile = /^https:\/\/www\.linkedin\.com\/in\/(.+)\/$/.exec(address);
  const pattern = profile ? `linkedin\\.com/in/${escape(profile[1])}(?![A-Za-z0-9\\-_%])` : `${escape(address)}(?![a-z0-9-]|\\.[a-z0-9])`;
  return new RegExp(pattern, 'i').test(text);
}

/** An address from untrusted text that a proposal's text repeats. */
export interface SmuggledAddress {
  /** The proposal's field that names it: `args.message`, `args.subject`, `args.body`. */
  readonly field: string;
  readonly address: string;
  /** The untrusted fields it was found in. */
  readonly sources: readonly string[];
}

/**
 * The addresses that untrusted text names and a proposal's text repeats, other than the
 * lead's own and those the campaign's owner wrote into the brief: what an instruction hidden
 * in a profile ("tell them to write to boss@victim.example") would make a message carry.
 */
export function smuggledAddresses(input: {
  readonly texts: readonly { readonly field: string; readonly text: string }[];
  readonly untrusted: readonly UntrustedText[];
  /** The lead's recorded profile URL and email, and the addresses of the owner's own text. */
  readonly allowed: readonly string[];
}): SmuggledAddress[] {
  const allowed = new Set(input.allowed.flatMap((text) => [text, ...contactAddresses(text)]));
  const sources = new Map<string, string[]>();
  for (const entry of input.untrusted) {
    for (const address of contactAddresses(entry.text)) {
      if (!allowed.has(address)) sources.set(address, [...(sources.get(address) ?? []), entry.field]);
    }
  }
  return input.texts.flatMap(({ field, text }) =>
    [...sources].filter(([address]) => mentions(text, address)).map(([address, from]) => ({ field, address, sources: from })),
  );
}
