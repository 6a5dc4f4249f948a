import type { SignedInUser } from './accounts';

/** A request a client might get wrong, and the refusal it must get: never a 500, and nothing changed. */
export interface Attempt {
  name: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: (me: SignedInUser, other: SignedInUser) => string;
  body?: unknown;
  raw?: { type: string; data: string | Buffer };
  headers?: (me: SignedInUser) => Record<string, string>;
  status: number;
  code: string;
  /** The message must say what was wrong, e.g. name the field. */
  message: RegExp;
}

/** One input boundary: hostile text, shapes and numbers are refused before any DTO work. */
export const HOSTILE_INPUT: Attempt[] = [
  {
    name: 'NUL byte in a title',
    method: 'post',
    path: tasks,
    raw: json('{"title":"a\\u0000b"}'),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /title contains a NUL character/,
  },
  {
    name: 'lone surrogate in a title',
    method: 'post',
    path: tasks,
    raw: json('{"title":"a\\ud800b"}'),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /title contains a lone surrogate/,
  },
  {
    name: 'invalid UTF-8 bytes',
    method: 'post',
    path: tasks,
    raw: {
      type: 'application/json',
      data: Buffer.from([0x7b, 0x22, 0x74, 0x69, 0x74, 0x6c, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
    },
    status: 400,
    code: 'HTTP.MALFORMED_BODY',
    message: /not valid UTF-8/,
  },
  {
    name: '1 500 levels of nesting',
    method: 'post',
    path: tasks,
    raw: json(`{"title":"a","description":${'['.repeat(1500)}${']'.repeat(1500)}}`),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /description is nested deeper than 32 levels/,
  },
  {
    name: '__proto__ key',
    method: 'post',
    path: tasks,
    raw: json('{"title":"a","__proto__":{"admin":true}}'),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /__proto__ is a reserved key, not allowed/,
  },
  {
    name: 'constructor key',
    method: 'post',
    path: tasks,
    raw: json('{"title":"a","constructor":{"prototype":{}}}'),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /constructor is a reserved key, not allowed/,
  },
  {
    name: 'null title in a patch',
    method: 'patch',
    path: (me) => `${tasks(me)}/1`,
    body: { title: null },
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /title must be a string/,
  },
  ...['0x1', '0b1', '0o1', '1e0', '%201', '1%20', '+1', '01'].map((number): Attempt => ({
    name: `task number ${number}`,
    method: 'delete',
    path: (me) => `${tasks(me)}/${number}`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /number must be a whole number/,
  })),
  {
    name: 'page limit 0x10',
    method: 'get',
    path: (me) => `/api/${me.userId}/conversations?limit=0x10`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /limit must be a whole number/,
  },
  {
    name: 'query parameter given twice',
    method: 'get',
    path: (me) => `/api/${me.userId}/conversations?limit=1&limit=2`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /limit is given more than once/,
  },
  {
    name: 'NUL in a path parameter',
    method: 'get',
    path: (me) => `/api/${me.userId}/campaigns/a%00b`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /campaignId contains a NUL character/,
  },
  ...forgedCursors()
    .map(([what, cursor]): Attempt[] => [
      {
        name: `conversations cursor: ${what}`,
        method: 'get',
        path: (me) => `/api/${me.userId}/conversations?cursor=${cursor}`,
        status: 400,
        code: 'VALIDATION.INVALID_CURSOR',
        message: /cursor/,
      },
      {
        name: `campaigns cursor: ${what}`,
        method: 'get',
        path: (me) => `/api/${me.userId}/campaigns?cursor=${cursor}`,
        status: 400,
        code: 'VALIDATION.INVALID_CURSOR',
        message: /cursor/,
      },
    ])
    .flat(),
];

function json(data: string): { type: string; data: string } {
  return { type: 'application/json', data };
}

/** Cursors PostgreSQL would refuse although `Date.parse` takes their timestamps. */
function forgedCursors(): [string, string][] {
  const id = '00000000-0000-4000-8000-000000000000';
  const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return [
    ['a bare number as time', cursor(['1', id])],
    ['a day past the month', cursor(['2026-02-30 10:00:00+00', id])],
    ['year zero', cursor(['0000-01-01 00:00:00+00', id])],
    ['an English date', cursor(['March 7, 2026', id])],
  ];
}

/** The path of `user`'s task list. */
export function tasks(user: SignedInUser): string {
  return `/api/${user.userId}/tasks`;
}
