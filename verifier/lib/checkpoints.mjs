// Checkpoint signatures: Bridle's v1 signature and the C2SP signed note
// (c2sp.org/signed-note, c2sp.org/tlog-checkpoint), both Ed25519 by the same key.
import { createPublicKey, verify } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { sha256 } from './merkle.mjs';

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * The log's public key from what an operator hands out: a PEM file or PEM text, the base64
 * SPKI DER of a digest line's publicKey, or a note verifier key `<name>+<hash>+<base64(0x01 ‖ key)>`.
 */
export function readPublicKey(text) {
  const value = existsSync(text) ? readFileSync(text, 'utf8').trim() : text.trim();
  if (value.includes('-----BEGIN')) return createPublicKey(value);
  const parts = value.split('+');
  if (parts.length === 3 && /^[0-9a-f]{8}$/.test(parts[1])) {
    const raw = Buffer.from(parts[2], 'base64');
    if (raw.length !== 33 || raw[0] !== 1) throw new Error('not an Ed25519 note verifier key');
    return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw.subarray(1)]), format: 'der', type: 'spki' });
  }
  return createPublicKey({ key: Buffer.from(value, 'base64'), format: 'der', type: 'spki' });
}

export const rawPublicKey = (key) => key.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519_PREFIX.length);

/** The v1 signature of a digest line: `bridle-audit-checkpoint:v1\n<position>\n<seq>\n<headHash>\n<time>`. */
export function v1SignatureHolds(line, key) {
  const message = ['bridle-audit-checkpoint:v1', line.position, line.seq, line.headHash, line.time].join('\n');
  try {
    return verify(null, Buffer.from(message, 'utf8'), key, Buffer.from(line.signature, 'base64'));
  } catch {
    return false;
  }
}

/** Reads a checkpoint note and checks that the key signed it; {origin, size, root} or an error text. */
export function readNote(text, key) {
  const split = text.lastIndexOf('\n\n');
  if (split < 0 || !text.endsWith('\n')) return { error: 'not a signed note' };
  const body = text.slice(0, split + 1);
  const [origin, sizeText, rootText] = body.slice(0, -1).split('\n');
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText ?? '')) return { error: 'not a checkpoint note (size)' };
  const root = Buffer.from(rootText ?? '', 'base64');
  if (root.length !== 32) return { error: 'not a checkpoint note (root hash)' };
  const raw = rawPublicKey(key);
  for (const line of text.slice(split + 2, -1).split('\n')) {
    const match = /^\u2014 (\S+) (\S+)$/.exec(line);
    if (match === null) continue;
    const bytes = Buffer.from(match[2], 'base64');
    const keyHash = sha256(Buffer.concat([Buffer.from(match[1], 'utf8'), Buffer.of(0x0a, 0x01), raw])).subarray(0, 4);
    if (bytes.length !== 68 || !bytes.subarray(0, 4).equals(keyHash)) continue;
    if (verify(null, Buffer.from(body, 'utf8'), key, bytes.subarray(4))) return { origin, size: Number(sizeText), root };
  }
  return { error: 'no signature by this key' };
}

/**
 * A digest line's checks: the v1 signature, and on checkpoints with a tree, the note (signed,
 * of the line's size and root). {size, root (Buffer or null), headHash, seq} or an error text.
 */
export function checkDigestLine(line, key) {
  if (!v1SignatureHolds(line, key)) return { error: `checkpoint ${line.position}: v1 signature does not hold for this key` };
  if (line.note === undefined) return { size: line.position, root: null, headHash: line.headHash, seq: line.seq };
  const note = readNote(line.note, key);
  if (note.error) return { error: `checkpoint ${line.position}: note: ${note.error}` };
  if (note.size !== line.position || note.root.toString('hex') !== line.rootHash)
    return { error: `checkpoint ${line.position}: the note's size or root is not the line's` };
  return { size: note.size, root: note.root, headHash: line.headHash, seq: line.seq };
}

/** An auditor's kept checkpoint file: digest lines (NDJSON) or one signed note. */
export function readKeptCheckpoints(text, key) {
  if (text.trimStart().startsWith('{'))
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => checkDigestLine(JSON.parse(line), key));
  const note = readNote(text, key);
  return [note.error ? note : { size: note.size, root: note.root, headHash: null, seq: null }];
}
