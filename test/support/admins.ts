import type { INestApplicationContext } from '@nestjs/common';
import type { App } from 'supertest/types';
import { AddUserUseCase } from '../../src/application/identity/add-user.use-case';
import { GrantAdminRoleUseCase } from '../../src/application/identity/grant-admin-role.use-case';
import { RevokeAdminRoleUseCase } from '../../src/application/identity/revoke-admin-role.use-case';
import { signUpAndIn, type SignedInUser, uniqueEmail } from './accounts';

/** Grants the role as the operator's command does: through the running app's own use case. */
export async function grantAdmin(app: INestApplicationContext, email: string): Promise<void> {
  await app.get(GrantAdminRoleUseCase).execute({ email, operator: 'test' });
}

export async function revokeAdmin(app: INestApplicationContext, email: string): Promise<void> {
  await app.get(RevokeAdminRoleUseCase).execute({ email, operator: 'test' });
}

/** An account made by the operator and given the admin role, for a test that signs in itself. */
export async function addAdmin(app: INestApplicationContext, email: string, password: string): Promise<void> {
  await app.get(AddUserUseCase).execute({ email, password });
  await grantAdmin(app, email);
}

/** Signs a new account up and in over HTTP, then grants it the admin role. */
export async function signUpAdmin(sut: { app: INestApplicationContext; http: App }, email = uniqueEmail()): Promise<SignedInUser> {
  const admin = await signUpAndIn(sut.http, email);
  await grantAdmin(sut.app, email);
  return admin;
}
