/**
 * The Merkle tree over the audit chain (docs/decisions/0016-merkle-tree-over-the-audit-chain.md),
 * hashed as RFC 9162 §2.1 does: a leaf's hash is SHA-256(0x00 ‖ data), a node's
 * SHA-256(0x01 ‖ left ‖ right), the empty tree's SHA-256(""). Leaf i is the link at chain
 * position i + 1, its data the link's hash (32 bytes).
 *
 * Proofs are computed from the hashes of complete subtrees (2^level leaves starting at
 * index · 2^level), which the database keeps in tiles (merkle-tiles.ts): a caller first asks
 * which subtrees a proof needs, reads them, then computes the proof. Sizes and indexes are
 * numbers up to 2^53 − 1, so no bitwise operators (they are 32-bit in JavaScript).
 */

export type Hash = Uint8Array;
/** SHA-256 of the bytes; the domain imports no crypto, the caller gives it one. */
export type Sha256 = (data: Uint8Array) => Uint8Array;

export class MerkleHasher {
  constructor(readonly sha256: Sha256) {}

  empty(): Hash {
    return this.sha256(new Uint8Array(0));
  }

  leaf(data: Uint8Array): Hash {
    return this.sha256(concat([LEAF_PREFIX, data]));
  }

  node(left: Hash, right: Hash): Hash {
    return this.sha256(concat([NODE_PREFIX, left, right]));
  }
}

const LEAF_PREFIX = Uint8Array.of(0);
const NODE_PREFIX = Uint8Array.of(1);

/** A complete subtree: the 2^level leaves from index · 2^level. */
export interface Subtree {
  readonly level: number;
  readonly index: number;
}

/** A complete subtree's hash, from wherever the caller keeps them. */
export type SubtreeHashes = (subtree: Subtree) => Hash;

/** A half-open range of leaves [start, end), as RFC 9162's D[start:end]. */
type Range = readonly [number, number];

/** The largest power of two smaller than n (n ≥ 2): RFC 9162's k. */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}

function log2(n: number): number {
  let level = 0;
  for (let k = 1; k < n; k *= 2) level += 1;
  return level;
}

/**
 * The complete subtrees that make up D[start:end], left to right, for a range the RFC's
 * recursion produces (start is a multiple of the largest power of two ≤ end − start).
 */
export function rangeSubtrees(start: number, end: number): Subtree[] {
  const subtrees: Subtree[] = [];
  let from = start;
  while (from < end) {
    const n = end - from;
    const size = isPowerOfTwo(n) ? n : split(n);
    const level = log2(size);
    subtrees.push({ level, index: from / size });
    from += size;
  }
  return subtrees;
}

/** MTH(D[start:end]) from complete subtrees: the right-hand ranges of a tree not a power of two are folded from the right. */
function rangeHash(hasher: MerkleHasher, [start, end]: Range, hashes: SubtreeHashes): Hash {
  const parts = rangeSubtrees(start, end).map(hashes);
  let hash = parts[parts.length - 1];
  for (let i = parts.length - 2; i >= 0; i--) hash = hasher.node(parts[i], hash);
  return hash;
}

/** RFC 9162 §2.1.3.1 PATH(m, D[n]), as the ranges whose MTH it lists, in the proof's order (the leaf's sibling first). */
function inclusionRanges(index: number, size: number): Range[] {
  const ranges: Range[] = [];
  let start = 0;
  let end = size;
  while (end - start > 1) {
    const k = split(end - start);
    if (index - start < k) {
      ranges.push([start + k, end]);
      end = start + k;
    } else {
      ranges.push([start, start + k]);
      start += k;
    }
  }
  return ranges.reverse();
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]) = SUBPROOF(m, D[n], true), as ranges in the proof's order. */
function consistencyRanges(first: number, second: number): Range[] {
  const ranges: Range[] = [];
  if (first <= 0 || first >= second) return ranges;
  let start = 0;
  let end = second;
  let m = first;
  let whole = true;
  while (m !== end - start) {
    const k = split(end - start);
    if (m <= k) {
      ranges.push([start + k, end]);
      end = start + k;
    } else {
      ranges.push([start, start + k]);
      m -= k;
      start += k;
      whole = false;
    }
  }
  if (!whole) ranges.push([start, end]);
  return ranges.reverse();
}

/** What a caller must read to answer: the complete subtrees, each once. */
function subtreesOf(ranges: readonly Range[]): Subtree[] {
  const seen = new Map<string, Subtree>();
  for (const [start, end] of ranges)
    for (const subtree of rangeSubtrees(start, end)) seen.set(`${subtree.level}/${subtree.index}`, subtree);
  return [...seen.values()];
}

function checkSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`not a tree size: ${size}`);
}

/** The complete subtrees rootHash needs for a tree of `size` leaves. */
export function rootSubtrees(size: number): Subtree[] {
  checkSize(size);
  return size === 0 ? [] : rangeSubtrees(0, size);
}

/** MTH(D[size]): the root of the first `size` leaves. */
export function rootHash(hasher: MerkleHasher, size: number, hashes: SubtreeHashes): Hash {
  checkSize(size);
  return size === 0 ? hasher.empty() : rangeHash(hasher, [0, size], hashes);
}

/** The complete subtrees inclusionProof needs. */
export function inclusionSubtrees(index: number, size: number): Subtree[] {
  checkSize(size);
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  return subtreesOf(inclusionRanges(index, size));
}

/** RFC 9162 §2.1.3.1: the inclusion proof of leaf `index` in the tree of the first `size` leaves. */
export function inclusionProof(hasher: MerkleHasher, index: number, size: number, hashes: SubtreeHashes): Hash[] {
  inclusionSubtrees(index, size);
  return inclusionRanges(index, size).map((range) => rangeHash(hasher, range, hashes));
}

/** The complete subtrees consistencyProof needs. */
export function consistencySubtrees(first: number, second: number): Subtree[] {
  checkSize(first);
  checkSize(second);
  if (first > second) throw new RangeError(`a tree of ${first} is not a prefix of one of ${second}`);
  return subtreesOf(consistencyRanges(first, second));
}

/**
 * RFC 9162 §2.1.4.1: the consistency proof that the tree of `first` leaves is a prefix of the
 * tree of `second`. Empty when first is 0 or equal to second (nothing to prove).
 */
export function consistencyProof(hasher: MerkleHasher, first: number, second: number, hashes: SubtreeHashes): Hash[] {
  consistencySubtrees(first, second);
  return consistencyRanges(first, second).map((range) => rangeHash(hasher, range, hashes));
}

/** RFC 9162 §2.1.3.2: whether `proof` shows the leaf hash at `index` in the tree of `size` leaves whose root is `root`. */
export function verifyInclusion(
  hasher: MerkleHasher,
  index: number,
  size: number,
  leafHash: Hash,
  proof: readonly Hash[],
  root: Hash,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = hasher.node(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = hasher.node(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalHashes(r, root);
}

/**
 * RFC 9162 §2.1.4.2: whether `proof` shows that the tree of `first` leaves (root `firstRoot`)
 * is a prefix of the tree of `second` (root `secondRoot`). Equal sizes need an empty proof and
 * equal roots; from the empty tree, an empty proof.
 */
export function verifyConsistency(
  hasher: MerkleHasher,
  first: number,
  second: number,
  proof: readonly Hash[],
  firstRoot: Hash,
  secondRoot: Hash,
): boolean {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || first > second) return false;
  if (first === second) return proof.length === 0 && equalHashes(firstRoot, secondRoot);
  if (first === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = hasher.node(c, fr);
      sr = hasher.node(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else sr = hasher.node(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return equalHashes(fr, firstRoot) && equalHashes(sr, secondRoot) && sn === 0;
}

export function equalHashes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function fromHex(hex: string): Uint8Array {
  if (!/^(?:[0-9a-f]{2})*$/.test(hex)) throw new RangeError('not lowercase hex');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** The leaf hash of the link whose hash (64 hex digits) is `linkHash`. */
export function linkLeafHash(hasher: MerkleHasher, linkHash: string): Hash {
  return hasher.leaf(fromHex(linkHash));
}

/**
 * The tree built leaf by leaf, keeping only the roots of its perfect subtrees (at most one per
 * level): the root at every size in O(log n) memory. Verify rebuilds the tree from the links
 * with it, to check each checkpoint's root.
 */
export class CompactTree {
  private readonly stack: { level: number; hash: Hash }[] = [];
  size = 0;

  constructor(private readonly hasher: MerkleHasher) {}

  append(leafHash: Hash): void {
    let node = { level: 0, hash: leafHash };
    while (this.stack.length > 0 && this.stack[this.stack.length - 1].level === node.level) {
      const left = this.stack.pop()!;
      node = { level: node.level + 1, hash: this.hasher.node(left.hash, node.hash) };
    }
    this.stack.push(node);
    this.size += 1;
  }

  root(): Hash {
    if (this.stack.length === 0) return this.hasher.empty();
    let hash = this.stack[this.stack.length - 1].hash;
    for (let i = this.stack.length - 2; i >= 0; i--) hash = this.hasher.node(this.stack[i].hash, hash);
    return hash;
  }
}
