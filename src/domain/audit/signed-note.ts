import { concat, type Hash, type Sha256 } from './merkle';

/**
 * A checkpoint of the audit tree as a C2SP signed note (c2sp.org/signed-note) whose body is a
 * C2SP tlog-checkpoint (c2sp.org/tlog-checkpoint):
 *
 *     <origin>\n<tree size>\n<base64 root hash>\n\n— <key name> <base64(key hash ‖ signature)>\n
 *
 * The signature is Ed25519 over the body's UTF-8 bytes (the three lines, each with its
 * newline); the key hash is the first 4 bytes of SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ 32-byte
 * public key), the signed-note rule for Ed25519. Bridle names its key by the origin.
 */
export interface TreeHead {
  /** The log's name, e.g. `bridle.example.com/audit`: one line, no spaces or plus signs. */
  readonly origin: string;
  readonly size: number;
  readonly rootHash: Hash;
}

export interface NoteSignature {
  readonly name: string;
  /** 4 bytes. */
  readonly keyHash: Uint8Array;
  /** 64 bytes: the Ed25519 signature. */
  readonly signature: Uint8Array;
}

export interface ParsedCheckpointNote extends TreeHead {
  /** The signed text: the body, every line with its newline. */
  readonly body: string;
  readonly signatures: readonly NoteSignature[];
}

const ED25519 = 0x01;
const DASH = '\u2014';

export function validOrigin(origin: string): boolean {
  return origin.length > 0 && origin.length <= 255 && /^[\x21-\x7e]+$/.test(origin) && !origin.includes('+');
}

/** The tlog-checkpoint body: what is signed. */
export function checkpointBody(head: TreeHead): string {
  if (!validOrigin(head.origin)) throw new RangeError(`not a log origin: ${head.origin}`);
  return `${head.origin}\n${head.size}\n${toBase64(head.rootHash)}\n`;
}

/** The signed-note key hash of an Ed25519 key: 4 bytes. */
export function ed25519KeyHash(sha256: Sha256, name: string, publicKey: Uint8Array): Uint8Array {
  return sha256(concat([new TextEncoder().encode(name), Uint8Array.of(0x0a, ED25519), publicKey])).slice(0, 4);
}

/** The note's verifier key, as Go's `note.NewVerifier` reads it: `<name>+<key hash, hex>+<base64(0x01 ‖ public key)>`. */
export function verifierKey(sha256: Sha256, name: string, publicKey: Uint8Array): string {
  const hash = ed25519KeyHash(sha256, name, publicKey);
  const hex = [...hash].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${name}+${hex}+${toBase64(concat([Uint8Array.of(ED25519), publicKey]))}`;
}

/** The whole note: body, blank line, one signature line. */
export function signedNote(body: string, signature: NoteSignature): string {
  return `${body}\n${DASH} ${signature.name} ${toBase64(concat([signature.keyHash, signature.signature]))}\n`;
}

/** Reads a checkpoint note; null when it is not one (its signatures are not checked here). */
export function parseCheckpointNote(text: string): ParsedCheckpointNote | null {
  const split = text.lastIndexOf('\n\n');
  if (split < 0 || !text.endsWith('\n')) return null;
  const body = text.slice(0, split + 1);
  const lines = body.slice(0, -1).split('\n');
  if (lines.length < 3) return null;
  const [origin, sizeText, rootText] = lines;
  if (!validOrigin(origin) || !/^(0|[1-9][0-9]*)$/.test(sizeText)) return null;
  const size = Number(sizeText);
  const rootHash = fromBase64(rootText);
  if (!Number.isSafeInteger(size) || rootHash === null || rootHash.length !== 32) return null;
  const signatures: NoteSignature[] = [];
  for (const line of text.slice(split + 2, -1).split('\n')) {
    const match = new RegExp(`^${DASH} (\\S+) (\\S+)$`).exec(line);
    const bytes = match === null ? null : fromBase64(match[2]);
    if (match === null || bytes === null || bytes.length < 5) return null;
    signatures.push({ name: match[1], keyHash: bytes.slice(0, 4), signature: bytes.slice(4) });
  }
  if (signatures.length === 0) return null;
  return { origin, size, rootHash, body, signatures };
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Standard base64 with padding; null when the text is not that. */
export function fromBase64(text: string): Uint8Array | null {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return null;
  const binary = atob(text);
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
