import request from 'supertest';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { profile } from '../support/campaigns';
import { useTestApp } from '../support/test-app';

describe('the do-not-contact list', () => {
  const sut = useTestApp();
  const ada = sut.user();
  const eve = sut.user();

  const list = (user: SignedInUser) => `/api/${user.userId}/do-not-contact`;

  it('adds (idempotently, in canonical form), lists newest first and removes entries', async () => {
    const user = await signUpAndIn(sut.http);
    const email = await request(sut.http).post(list(user)).set(user.auth).send({ value: ' Ada@Example.com ' }).expect(201);
    expect(email.body).toEqual({ id: expect.any(String), kind: 'email', value: 'ada@example.com', createdAt: expect.any(String) });
    const again = await request(sut.http).post(list(user)).set(user.auth).send({ value: 'ada@example.com' }).expect(201);
    expect(again.body).toEqual(email.body);
    const linkedin = await request(sut.http).post(list(user)).set(user.auth).send({ value: 'https://linkedin.com/in/Ada-L' }).expect(201);
    expect(linkedin.body).toMatchObject({ kind: 'linkedin', value: profile('ada-l') });

    const listed = await request(sut.http).get(list(user)).set(user.auth).expect(200);
    expect(listed.body).toEqual([linkedin.body, email.body]);
    expect((await request(sut.http).get(list(eve)).set(eve.auth).expect(200)).body).toEqual([]);

    const foreign = await request(sut.http)
      .delete(`${list(eve)}/${email.body.id}`)
      .set(eve.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'OUTREACH.DO_NOT_CONTACT_NOT_FOUND' });
    await request(sut.http)
      .delete(`${list(user)}/${email.body.id}`)
      .set(user.auth)
      .expect(204);
    await request(sut.http)
      .delete(`${list(user)}/${email.body.id}`)
      .set(user.auth)
      .expect(404);
    expect((await request(sut.http).get(list(user)).set(user.auth).expect(200)).body).toEqual([linkedin.body]);
  });

  it.each([
    [
      'a value that is neither an email nor a profile',
      { value: 'ada' },
      'OUTREACH.INVALID_DO_NOT_CONTACT',
      /value must be an email address or a https:\/\/www\.linkedin\.com\/in\/<name>\/ URL/,
    ],
    [
      'a company page',
      { value: 'https://www.linkedin.com/company/acme/' },
      'OUTREACH.INVALID_DO_NOT_CONTACT',
      /value must be an email address/,
    ],
    ['a number', { value: 42 }, 'VALIDATION.FAILED', /value must be a string/],
    ['no value', {}, 'VALIDATION.FAILED', /value must be a string/],
  ])('refuses %s with 400', async (_, body, code, message) => {
    const res = await request(sut.http).post(list(ada)).set(ada.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code, message: expect.stringMatching(message) });
  });

  it('refuses an entry id that is not a UUID', async () => {
    const res = await request(sut.http)
      .delete(`${list(ada)}/nope`)
      .set(ada.auth);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message: 'entryId must be a UUID' });
  });
});
