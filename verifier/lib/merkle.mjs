// RFC 9162 §2.1 Merkle tree hashing and proof verification, written for the verifier alone
// (it imports nothing from Bridle). Leaf i is the audit chain's link at position i + 1; its
// data is the link hash's 32 bytes.
import { createHash } from 'node:crypto';

export const sha256 = (bytes) => createHash('sha256').update(bytes).digest();
const LEAF = Buffer.of(0);
const NODE = Buffer.of(1);

export const leafHash = (linkHashHex) => sha256(Buffer.concat([LEAF, Buffer.from(linkHashHex, 'hex')]));
export const nodeHash = (left, right) => sha256(Buffer.concat([NODE, left, right]));
export const emptyRoot = () => sha256(Buffer.alloc(0));

/** RFC 9162 §2.1.3.2. */
export function verifyInclusion(index, size, leaf, proof, root) {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

const isPowerOfTwo = (n) => n > 0 && Number.isSafeInteger(Math.log2(n)) && 2 ** Math.log2(n) === n;

/** RFC 9162 §2.1.4.2. */
export function verifyConsistency(first, second, proof, firstRoot, secondRoot) {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || first > second) return false;
  if (first === second) return proof.length === 0 && firstRoot.equals(secondRoot);
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
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else sr = nodeHash(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return fr.equals(firstRoot) && sr.equals(secondRoot) && sn === 0;
}

/**
 * The tree built leaf by leaf, keeping one perfect subtree per level: the root at any size in
 * O(log n) memory. It can start from the complete subtrees of the leaves before a range (the
 * pack's leftSubtrees, largest first), which is exactly what it would hold at that size.
 */
export class CompactTree {
  constructor(size = 0, subtrees = []) {
    this.size = size;
    this.stack = [];
    let rest = size;
    const levels = [];
    for (let level = 52; level >= 0; level--) {
      if (rest < 2 ** level) continue;
      levels.push(level);
      rest -= 2 ** level;
    }
    if (levels.length !== subtrees.length)
      throw new Error(`expected ${levels.length} subtree hashes before position ${size + 1}, got ${subtrees.length}`);
    levels.forEach((level, i) => this.stack.push({ level, hash: subtrees[i] }));
  }

  append(leaf) {
    let node = { level: 0, hash: leaf };
    while (this.stack.length > 0 && this.stack[this.stack.length - 1].level === node.level) {
      const left = this.stack.pop();
      node = { level: node.level + 1, hash: nodeHash(left.hash, node.hash) };
    }
    this.stack.push(node);
    this.size += 1;
  }

  root() {
    if (this.stack.length === 0) return emptyRoot();
    let hash = this.stack[this.stack.length - 1].hash;
    for (let i = this.stack.length - 2; i >= 0; i--) hash = nodeHash(this.stack[i].hash, hash);
    return hash;
  }
}
