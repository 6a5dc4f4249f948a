import {
  type ChainState,
  checkpointDue,
  checkpointMessage,
  parseDigestLine,
  type SignedCheckpoint,
  toDigestLine,
} from '../../../src/domain/audit/checkpoint';

const at = (iso: string) => new Date(iso);
const interval = { rows: 1000, ms: 60_000 };
const state = (head: number, last: ChainState['last']): ChainState => ({
  head: { position: head, seq: head + 3, hash: 'a'.repeat(64) },
  last,
  firstSealedAt: at('2026-12-01T10:00:00.000Z'),
});

describe(checkpointDue.name, () => {
  it('is due after so many links or so long since the last, whichever first, and never without a new link', () => {
    const last = { position: 500, createdAt: at('2026-12-01T10:00:00.000Z') };
    expect(checkpointDue(interval, state(1499, last), at('2026-12-01T10:00:59.999Z'))).toBe(false);
    expect(checkpointDue(interval, state(1500, last), at('2026-12-01T10:00:01.000Z'))).toBe(true);
    expect(checkpointDue(interval, state(501, last), at('2026-12-01T10:01:00.000Z'))).toBe(true);
    expect(checkpointDue(interval, state(500, last), at('2026-12-02T10:00:00.000Z'))).toBe(false);
  });

  it('counts the first from the start of the chain', () => {
    expect(checkpointDue(interval, state(999, null), at('2026-12-01T10:00:30.000Z'))).toBe(false);
    expect(checkpointDue(interval, state(1000, null), at('2026-12-01T10:00:30.000Z'))).toBe(true);
    expect(checkpointDue(interval, state(1, null), at('2026-12-01T10:01:00.000Z'))).toBe(true);
  });
});

describe('digest lines', () => {
  const checkpoint: SignedCheckpoint = {
    position: 10_000,
    seq: 10_042,
    headHash: 'b'.repeat(64),
    createdAt: at('2026-12-01T10:00:00.123Z'),
    keyId: '0123456789abcdef',
    publicKey: 'MCowBQYDK2VwAyEA',
    signature: 'c2lnbmF0dXJl',
    tree: null,
  };

  it('signs one exact message, and a line reads back as the checkpoint it was written from', () => {
    expect(checkpointMessage(checkpoint)).toBe(`bridle-audit-checkpoint:v1\n10000\n10042\n${'b'.repeat(64)}\n2026-12-01T10:00:00.123Z`);
    expect(parseDigestLine(JSON.stringify(toDigestLine(checkpoint)))).toEqual(checkpoint);
    const withTree = { ...checkpoint, tree: { size: 10_000, rootHash: 'c'.repeat(64), note: 'bridle.test/audit\n10000\n…\n' } };
    expect(parseDigestLine(JSON.stringify(toDigestLine(withTree)))).toEqual(withTree);
    expect(parseDigestLine(JSON.stringify({ ...toDigestLine(withTree), rootHash: 'C'.repeat(64) }))).toBeNull();
  });

  it.each([
    ['not JSON', 'position 1'],
    ['a time not as signed', JSON.stringify({ ...toDigestLine(checkpoint), time: '2026-12-01T10:00:00.123+00:00' })],
    ['a short hash', JSON.stringify({ ...toDigestLine(checkpoint), headHash: 'b'.repeat(63) })],
    ['a position of 0', JSON.stringify({ ...toDigestLine(checkpoint), position: 0 })],
    ['a position as text', JSON.stringify({ ...toDigestLine(checkpoint), position: '10000' })],
    ['no signature', JSON.stringify({ ...toDigestLine(checkpoint), signature: undefined })],
  ])('refuses %s', (_, line) => {
    expect(parseDigestLine(line)).toBeNull();
  });
});
