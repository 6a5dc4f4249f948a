import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { App } from 'supertest/types';

export interface SignedInUser {
  readonly userId: string;
  readonly email: string;
  readonly token: string;
  readonly auth: { Authorization: string };
}

export async function signUpAndIn(http: App, email = uniqueEmail()): Promise<SignedInUser> {
  const password = 'correct horse battery';
  await request(http).post('/auth/register').send({ email, password }).expect(201);
  const login = await request(http).post('/auth/login').send({ email, password }).expect(200);
  const { accessToken, userId } = login.body as { accessToken: string; userId: string };
  return { userId, email, token: accessToken, auth: { Authorization: `Bearer ${accessToken}` } };
}

export function uniqueEmail(): string {
  return `user-${randomBytes(5).toString('hex')}@example.com`;
}
