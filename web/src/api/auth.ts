/** Signing up and in, and keeping a session: its account, its renewal, its password. */
import type {
  ChangePasswordData,
  ChangePasswordResponse,
  GetCurrentAccountData,
  GetCurrentAccountResponse,
  LoginData,
  MonthBudgetDto,
  LoginResponse,
  RefreshSessionData,
  RefreshSessionResponse,
  RegisterData,
} from '../generated/types.gen';
import { json, send, type Session, url } from './http';

async function register(email: string, password: string): Promise<void> {
  const body: RegisterData['body'] = { email, password };
  await send('POST', url<RegisterData>('/auth/register', {}), null, body);
}

export async function login(email: string, password: string): Promise<Session> {
  const body: LoginData['body'] = { email, password };
  return sessionOf(await json<LoginResponse>('POST', url<LoginData>('/auth/login', {}), null, body), email);
}

/** A token answer made a session: the account's role and email come from /auth/me. */
async function sessionOf(reply: LoginResponse, email: string): Promise<Session> {
  const pending: Session = {
    token: reply.accessToken,
    userId: reply.userId,
    email,
    role: 'user',
    expiresAt: Date.now() + reply.expiresIn * 1000,
    issuedAt: Date.now(),
  };
  const account = await json<GetCurrentAccountResponse>('GET', url<GetCurrentAccountData>('/auth/me', {}), pending);
  return { ...pending, email: account.email, role: account.role };
}

/** The session with the account as it is now (its role may have changed since sign-in); a 401 if the token no longer holds. */
export async function refreshAccount(session: Session): Promise<Session> {
  const account = await json<GetCurrentAccountResponse>('GET', url<GetCurrentAccountData>('/auth/me', {}), session);
  return { ...session, email: account.email, role: account.role };
}

/**
 * A fresh token of the same sign-in for a session whose token still holds (POST /auth/refresh).
 * A 401 when it cannot be renewed: the sign-in is older than the server's cap, or the password changed.
 */
export async function renewSession(session: Session): Promise<Session> {
  const reply = await json<RefreshSessionResponse>('POST', url<RefreshSessionData>('/auth/refresh', {}), session);
  const now = Date.now();
  return { ...session, token: reply.accessToken, expiresAt: now + reply.expiresIn * 1000, issuedAt: now };
}

/** Creates the account and signs in with it: one step for the person. */
export async function signUp(email: string, password: string): Promise<Session> {
  await register(email, password);
  return login(email, password);
}

/** Changes the password; every other session ends, this one goes on with the new token the answer carries. */
export async function changePassword(session: Session, currentPassword: string, newPassword: string): Promise<Session> {
  const body: ChangePasswordData['body'] = { currentPassword, newPassword };
  const reply = await json<ChangePasswordResponse>('POST', url<ChangePasswordData>('/auth/password', {}), session, body);
  return sessionOf(reply, session.email);
}

/** This month's chat spend as the person's account shows it; null when the server prices no model. */
export type MonthSpend = MonthBudgetDto;

export async function monthSpend(session: Session): Promise<MonthSpend | null> {
  const account = await json<GetCurrentAccountResponse>('GET', url<GetCurrentAccountData>('/auth/me', {}), session);
  return account.chatBudget.month;
}
