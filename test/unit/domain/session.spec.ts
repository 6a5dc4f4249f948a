import { renewedLifetimeSeconds, SessionTooOldError } from '../../../src/domain/identity/session';

describe(renewedLifetimeSeconds.name, () => {
  const signedInAt = new Date('2026-11-22T09:00:00Z');
  const at = (seconds: number) => new Date(signedInAt.getTime() + seconds * 1000);
  const sut = (nowSeconds: number) =>
    renewedLifetimeSeconds({ signedInAt, now: at(nowSeconds), lifetimeSeconds: 3600, maxAgeSeconds: 43_200 });

  it('gives the usual lifetime while the cap is further away', () => {
    expect(sut(60)).toBe(3600);
    expect(sut(43_200 - 3600)).toBe(3600);
  });

  it('cuts the last renewal short so that no token outlives the cap', () => {
    expect(sut(43_200 - 90)).toBe(90);
    expect(sut(43_199)).toBe(1);
  });

  it('refuses at and past the cap, saying how old a sign-in may be', () => {
    expect(() => sut(43_200)).toThrow(SessionTooOldError);
    expect(() => sut(43_200 * 3)).toThrow('This sign-in is more than 12 hours old and cannot be renewed: sign in again');
    expect(() => renewedLifetimeSeconds({ signedInAt, now: at(8 * 86_400), lifetimeSeconds: 3600, maxAgeSeconds: 7 * 86_400 })).toThrow(
      /more than 7 days old/,
    );
  });
});
