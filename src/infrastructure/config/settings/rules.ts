import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { type ModelPrice, readPriceTable } from '../../../domain/agent/pricing';
import { type Setting } from './setting';

/** The schema and the docs' "allowed" column of a setting, spread into its entry. */
export type Rule<T> = Pick<Setting<T>, 'schema' | 'allowed'>;

const group = (value: number): string => value.toLocaleString('en-US').replaceAll(',', ' ');

/** Plain digits only: `1e3`, `-1` and `0x10` are refused. */
export function wholeNumber(min: number, max: number): Rule<number> {
  return {
    schema: z
      .string()
      .refine((raw) => /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max, {
        error: (issue) => `must be a whole number from ${min} to ${max}, got "${String(issue.input)}"`,
      })
      .transform(Number),
    allowed: `${group(min)}–${group(max)}`,
  };
}

export function decimal(max?: number): Rule<number> {
  return {
    schema: z
      .string()
      .refine((raw) => /^\d+(\.\d+)?$/.test(raw), {
        error: (issue) => `must be a non-negative decimal number, got "${String(issue.input)}"`,
        abort: true,
      })
      .refine((raw) => max === undefined || Number(raw) <= max, {
        error: (issue) => `must be at most ${max}, got "${String(issue.input)}"`,
      })
      .transform(Number),
    allowed: max === undefined ? 'decimal ≥ 0' : `decimal 0–${group(max)}`,
  };
}

export function oneOf<const T extends readonly [string, ...string[]]>(allowed: T): Rule<T[number]> {
  return {
    schema: z
      .string()
      .refine((raw) => allowed.includes(raw), {
        error: (issue) => `must be one of ${allowed.join(', ')}, got "${String(issue.input)}"`,
      })
      .transform((raw) => raw as T[number]),
    allowed: allowed.map((value) => `\`${value}\``).join(', '),
  };
}

export function flag(): Rule<boolean> {
  const { schema, allowed } = oneOf(['true', 'false']);
  return { schema: schema.transform((value) => value === 'true'), allowed };
}

export function text(allowed = 'text'): Rule<string> {
  return { schema: z.string(), allowed };
}

export function pattern(regex: RegExp, problem: string, allowed: string): Rule<string> {
  return { schema: z.string().regex(regex, { error: problem }), allowed };
}

export const httpUrl = (): Rule<string> => pattern(/^https?:\/\/[^\s]+$/, 'must be an http:// or https:// URL', '`http(s)://` URL');
export const postgresUrl = (): Rule<string> =>
  pattern(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL', '`postgres://…` or `postgresql://…`');

/** Its value is never put in a message. */
export function secret(minLength: number): Rule<string> {
  return {
    schema: z.string().min(minLength, { error: `must be at least ${minLength} characters long` }),
    allowed: `≥ ${minLength} characters`,
  };
}

/** Comma-separated, trimmed and lower-cased; blank entries are dropped. */
export function list(allowed: string, entry?: { readonly regex: RegExp; readonly what: string }): Rule<ReadonlySet<string>> {
  return {
    schema: z.string().transform((raw, context) => {
      const entries = raw
        .split(',')
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean);
      const bad = entry === undefined ? undefined : entries.find((item) => !entry.regex.test(item));
      if (bad !== undefined) context.addIssue({ code: 'custom', message: `contains "${bad}", which is not ${entry?.what}` });
      return new Set(entries);
    }),
    allowed,
  };
}

/** An http(s) origin with an optional path prefix; no query, fragment or user; a trailing slash is dropped. */
export function baseUrl(): Rule<string> {
  return {
    schema: z
      .string()
      .regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/i, {
        error: (issue) => `must be an http:// or https:// URL with no query or fragment, got "${String(issue.input)}"`,
      })
      .transform((value) => value.replace(/(?<!\/)\/+$/, '')),
    allowed:
      'an `http://` or `https://` URL, with a path prefix if Bridle is served under one; no query, fragment or user; a trailing `/` is dropped',
  };
}

/**
 * `false` trusts no proxy (the socket's address is the client's); a number trusts that many
 * hops; otherwise a comma-separated list of addresses, CIDR ranges or Express's names. `true`
 * (trust anyone to say who the client is) is refused: every client could pick its own rate-limit key.
 */
export function trustProxy(): Rule<boolean | number | string> {
  const hops = wholeNumber(0, 10).schema;
  return {
    schema: z.string().transform((value, context): boolean | number | string => {
      if (value === 'false') return false;
      if (/^\d+$/.test(value)) {
        const parsed = hops.safeParse(value);
        if (parsed.success) return parsed.data;
        context.addIssue({ code: 'custom', message: parsed.error.issues[0].message });
        return z.NEVER;
      }
      const entries = value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
      const bad = entries.find((entry) => !/^(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)$/.test(entry));
      if (bad !== undefined || entries.length === 0) {
        const message = `must be false, a number of hops, or addresses/CIDRs/loopback; "${bad ?? value}" is none of them`;
        context.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return entries.join(',');
    }),
    allowed: '`false`; a number of hops 0–10; or a comma list of IP addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`',
  };
}

/** An Ed25519 private key, PEM or base64 of PKCS8 DER, as PKCS8 PEM. */
export function ed25519PrivateKey(): Rule<string> {
  return {
    schema: z.string().transform((value, context) => {
      let key;
      try {
        key = value.startsWith('-----BEGIN')
          ? createPrivateKey(value)
          : createPrivateKey({ key: Buffer.from(value, 'base64'), format: 'der', type: 'pkcs8' });
      } catch {
        key = undefined;
      }
      if (key?.asymmetricKeyType !== 'ed25519') {
        context.addIssue({ code: 'custom', message: 'must be an Ed25519 private key: PEM, or base64 of PKCS8 DER' });
        return z.NEVER;
      }
      return key.export({ format: 'pem', type: 'pkcs8' }) as string;
    }),
    allowed: 'an Ed25519 private key, PEM or base64 of PKCS8 DER',
  };
}

/** LLM_PRICES: a JSON price table (readPriceTable); the problem names the model and the field. */
export function priceTable(): Rule<ReadonlyMap<string, ModelPrice>> {
  return {
    schema: z.string().transform((raw, context) => {
      const reading = readPriceTable(raw);
      if (reading.ok) return reading.prices;
      context.addIssue({ code: 'custom', message: reading.problem });
      return z.NEVER;
    }),
    allowed: 'JSON: model → `{input, output}`, a million tokens',
  };
}
