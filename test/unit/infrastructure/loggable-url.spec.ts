import { loggableUrl } from '../../../src/infrastructure/logging/log-serializers';

describe(loggableUrl.name, () => {
  it("masks an unsubscribe link's token, which is the permission to use it", () => {
    expect(loggableUrl('/unsubscribe/dW5zdWJzY3JpYmU.c2lnbmF0dXJl')).toBe('/unsubscribe/[REDACTED]');
    expect(loggableUrl('/unsubscribe/dW5zdWJzY3JpYmU.c2lnbmF0dXJl?x=1')).toBe('/unsubscribe/[REDACTED]?x=1');
  });

  it('keeps other paths, and masks secret-named query values', () => {
    expect(loggableUrl('/api/1/campaigns/2/tasks?limit=5')).toBe('/api/1/campaigns/2/tasks?limit=5');
    expect(loggableUrl('/health?access_token=abc')).toBe('/health?access_token=[REDACTED]');
  });
});
