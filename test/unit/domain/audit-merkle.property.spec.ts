import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  consistencyProof,
  consistencySubtrees,
  type Hash,
  inclusionProof,
  inclusionSubtrees,
  MerkleHasher,
  rootHash,
  rootSubtrees,
  toHex,
  verifyConsistency,
  verifyInclusion,
} from '../../../src/domain/audit/merkle';
import { buildTiles, hashesFromTiles, tilesOf, tileName } from '../../../src/domain/audit/merkle-tiles';

const hasher = new MerkleHasher((data) => createHash('sha256').update(data).digest());

// The reference: RFC 9162 §2.1.1, §2.1.3.1 and §2.1.4.1 written as the RFC states them, over the leaves' data.
const split = (n: number) => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};
const mth = (d: readonly Uint8Array[]): Hash => {
  if (d.length === 0) return hasher.empty();
  if (d.length === 1) return hasher.leaf(d[0]);
  const k = split(d.length);
  return hasher.node(mth(d.slice(0, k)), mth(d.slice(k)));
};
const path = (m: number, d: readonly Uint8Array[]): Hash[] => {
  if (d.length <= 1) return [];
  const k = split(d.length);
  return m < k ? [...path(m, d.slice(0, k)), mth(d.slice(k))] : [...path(m - k, d.slice(k)), mth(d.slice(0, k))];
};
const subproof = (m: number, d: readonly Uint8Array[], b: boolean): Hash[] => {
  if (m === d.length) return b ? [] : [mth(d)];
  const k = split(d.length);
  return m <= k ? [...subproof(m, d.slice(0, k), b), mth(d.slice(k))] : [...subproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
};

const leavesOf = (n: number, seed: number) => Array.from({ length: n }, (_, i) => Uint8Array.of(seed, i % 256, Math.floor(i / 256), 7));

/** The tree as the database keeps it: tiles over the leaf hashes, read only through the subtrees a computation asks for. */
function tiled(leaves: readonly Uint8Array[]) {
  const all = buildTiles(
    hasher,
    leaves.map((leaf) => hasher.leaf(leaf)),
  );
  return (subtrees: ReturnType<typeof rootSubtrees>) =>
    hashesFromTiles(hasher, new Map(tilesOf(subtrees).map((tile) => [tileName(tile), all.get(tileName(tile))!])));
}

const hex = (hashes: readonly Hash[]) => hashes.map(toHex);
const flip = (hash: Hash) => Uint8Array.from(hash, (byte, i) => (i === 0 ? byte ^ 1 : byte));

describe('the audit Merkle tree (RFC 9162)', () => {
  it('hashes the RFC 6962 test vectors to their known roots', () => {
    const data = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((text) =>
      Uint8Array.from(Buffer.from(text, 'hex')),
    );
    const tree = tiled(data);
    const roots = [1, 2, 3, 8].map((size) => toHex(rootHash(hasher, size, tree(rootSubtrees(size)))));
    expect(roots).toEqual([
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
      'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
      '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
    ]);
    expect(toHex(rootHash(hasher, 0, tree([])))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  // Sizes across tile boundaries (256, 512): the subtrees then come from two tile levels.
  const size = fc.integer({ min: 1, max: 700 });

  it('computes from tiles the root and the inclusion proof the RFC defines, and every one verifies', () => {
    fc.assert(
      fc.property(size, fc.nat(), fc.nat(255), (n, at, seed) => {
        const leaves = leavesOf(n, seed);
        const m = at % n;
        const tree = tiled(leaves);
        const root = rootHash(hasher, n, tree(rootSubtrees(n)));
        const proof = inclusionProof(hasher, m, n, tree(inclusionSubtrees(m, n)));
        expect(toHex(root)).toBe(toHex(mth(leaves)));
        expect(hex(proof)).toEqual(hex(path(m, leaves)));
        expect(verifyInclusion(hasher, m, n, hasher.leaf(leaves[m]), proof, root)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses an inclusion proof for a changed leaf, another index, a wrong size, a changed, cut or lengthened proof', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 700 }), fc.nat(), fc.nat(), fc.nat(255), (n, at, other, seed) => {
        const leaves = leavesOf(n, seed);
        const m = at % n;
        const tree = tiled(leaves);
        const root = mth(leaves);
        const proof = inclusionProof(hasher, m, n, tree(inclusionSubtrees(m, n)));
        const leaf = hasher.leaf(leaves[m]);
        expect(verifyInclusion(hasher, m, n, flip(leaf), proof, root)).toBe(false);
        expect(verifyInclusion(hasher, m, n, hasher.leaf(leaves[(m + 1 + (other % (n - 1))) % n]), proof, root)).toBe(false);
        expect(verifyInclusion(hasher, (m + 1 + (other % (n - 1))) % n, n, leaf, proof, root)).toBe(false);
        expect(verifyInclusion(hasher, m, n, leaf, proof, flip(root))).toBe(false);
        // A size is only ever checked together with its root (a checkpoint signs both): another size, with that size's root.
        const wrong = m + 1 + (other % 700);
        if (wrong !== n) expect(verifyInclusion(hasher, m, wrong, leaf, proof, mth(leavesOf(wrong, seed)))).toBe(false);
        expect(verifyInclusion(hasher, m, n, leaf, proof.slice(0, -1), root)).toBe(false);
        expect(verifyInclusion(hasher, m, n, leaf, [...proof, root], root)).toBe(false);
        const k = other % proof.length;
        expect(
          verifyInclusion(
            hasher,
            m,
            n,
            leaf,
            proof.map((hash, i) => (i === k ? flip(hash) : hash)),
            root,
          ),
        ).toBe(false);
        expect(verifyInclusion(hasher, n, n, leaf, proof, root)).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('computes from tiles the consistency proof the RFC defines, and every one verifies', () => {
    fc.assert(
      fc.property(size, fc.nat(), fc.nat(255), (n, at, seed) => {
        const leaves = leavesOf(n, seed);
        const m = 1 + (at % n);
        const tree = tiled(leaves);
        const proof = consistencyProof(hasher, m, n, tree(consistencySubtrees(m, n)));
        expect(hex(proof)).toEqual(hex(m === n ? [] : subproof(m, leaves, true)));
        expect(verifyConsistency(hasher, m, n, proof, mth(leaves.slice(0, m)), mth(leaves))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses a consistency proof against another log, for other sizes, or changed, cut or lengthened', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 700 }), fc.nat(), fc.nat(), fc.nat(255), (n, at, other, seed) => {
        const leaves = leavesOf(n, seed);
        const m = 1 + (at % (n - 1));
        const tree = tiled(leaves);
        const proof = consistencyProof(hasher, m, n, tree(consistencySubtrees(m, n)));
        const oldRoot = mth(leaves.slice(0, m));
        const newRoot = mth(leaves);
        // The same first m leaves, then a rewritten one: the old tree is not its prefix.
        const rewritten = leaves.map((leaf, i) => (i === other % m ? Uint8Array.of(9, ...leaf) : leaf));
        expect(verifyConsistency(hasher, m, n, proof, mth(rewritten.slice(0, m)), newRoot)).toBe(false);
        expect(verifyConsistency(hasher, m, n, proof, oldRoot, mth(rewritten))).toBe(false);
        const wrong = 1 + (other % n);
        if (wrong !== m) expect(verifyConsistency(hasher, wrong, n, proof, mth(leaves.slice(0, wrong)), newRoot)).toBe(false);
        expect(verifyConsistency(hasher, m, n, proof.slice(0, -1), oldRoot, newRoot)).toBe(false);
        expect(verifyConsistency(hasher, m, n, [...proof, newRoot], oldRoot, newRoot)).toBe(false);
        const k = other % proof.length;
        expect(
          verifyConsistency(
            hasher,
            m,
            n,
            proof.map((hash, i) => (i === k ? flip(hash) : hash)),
            oldRoot,
            newRoot,
          ),
        ).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('proves nothing between equal sizes or from the empty tree, and nothing backwards', () => {
    const leaves = leavesOf(300, 1);
    const root = mth(leaves);
    expect(consistencyProof(hasher, 300, 300, tiled(leaves)(consistencySubtrees(300, 300)))).toEqual([]);
    expect(verifyConsistency(hasher, 300, 300, [], root, root)).toBe(true);
    expect(verifyConsistency(hasher, 300, 300, [], root, flip(root))).toBe(false);
    expect(verifyConsistency(hasher, 0, 300, [], hasher.empty(), root)).toBe(true);
    expect(verifyConsistency(hasher, 301, 300, [], root, root)).toBe(false);
    expect(() => consistencySubtrees(301, 300)).toThrow(RangeError);
    expect(() => inclusionSubtrees(300, 300)).toThrow(RangeError);
  });

  it('needs O(log n) subtrees for a proof, read from one tile per tile level and side', () => {
    for (const n of [10_000, 100_000, 1_000_000, 2 ** 53 - 1]) {
      const subtrees = inclusionSubtrees(n - 2, n);
      expect(subtrees.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)));
      expect(tilesOf(subtrees).length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n) / 8) + 1);
    }
  });
});
