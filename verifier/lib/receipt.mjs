// Verifies a receipt (bridle-receipt/v1) with the public key alone, and optionally carries it
// forward to a later checkpoint with a consistency proof.
import { isDeepStrictEqual } from 'node:util';
import { checkDigestLine, readNote } from './checkpoints.mjs';
import { leafHash, sha256, verifyConsistency, verifyInclusion } from './merkle.mjs';

export function verifyReceipt(receipt, key, consistency = null) {
  const report = { ok: true, problems: [], checked: [] };
  const bad = (problem) => {
    report.ok = false;
    report.problems.push(problem);
  };
  if (receipt.format !== 'bridle-receipt/v1') {
    bad('not a bridle-receipt/v1');
    return report;
  }
  const checkpoint = checkDigestLine(receipt.checkpoint, key);
  if (checkpoint.error) bad(checkpoint.error);
  else if (checkpoint.root === null) bad('the checkpoint has no tree root to prove against');
  else if (checkpoint.size !== receipt.inclusion.treeSize) bad('the proof is not against the checkpoint given');
  else report.checked.push(`checkpoint ${checkpoint.size}: v1 signature and signed note hold`);

  const { link } = receipt;
  if (receipt.canonical !== null) {
    const hash = sha256(Buffer.from(link.prevHash + receipt.canonical, 'utf8')).toString('hex');
    if (hash !== link.hash) bad('the row does not hash to its link');
    else if (!isDeepStrictEqual(JSON.parse(receipt.canonical), receipt.row) || receipt.row.seq !== receipt.seq)
      bad('the row shown is not the row hashed');
    else report.checked.push(`row ${receipt.seq}: its fields hash to its link at position ${link.position}`);
  } else report.checked.push(`row ${receipt.seq}: erased row from before commitments, only its link is proven`);

  const leaf = leafHash(link.hash);
  if (leaf.toString('base64') !== receipt.leaf.hash || receipt.leaf.index !== link.position - 1) bad('the leaf is not the link’s');
  const proof = receipt.inclusion.proof.map((hash) => Buffer.from(hash, 'base64'));
  if (!checkpoint.error && checkpoint.root !== null) {
    if (!verifyInclusion(link.position - 1, checkpoint.size, leaf, proof, checkpoint.root))
      bad(`the inclusion proof does not reach checkpoint ${checkpoint.size}'s root`);
    else report.checked.push(`position ${link.position} is in checkpoint ${checkpoint.size}'s tree`);
  }

  if (receipt.personal !== undefined) {
    const { salt, text } = receipt.personal;
    const opened = JSON.parse(text);
    if (sha256(Buffer.from(salt + text, 'utf8')).toString('hex') !== receipt.row?.personal)
      bad('the personal fields do not open the commitment');
    else if (
      !isDeepStrictEqual(opened, {
        arguments: receipt.personal.arguments,
        result: receipt.personal.result,
        errorMessage: receipt.personal.errorMessage,
      })
    )
      bad('the personal fields shown are not the ones committed to');
    else report.checked.push('the personal fields open the row’s commitment');
  }
  if (consistency !== null && report.ok) carryForward(consistency, checkpoint, key, report, bad);
  return report;
}

/** A consistency proof (GET …/consistency?from&to) from the receipt's checkpoint to a later one. */
function carryForward(consistency, checkpoint, key, report, bad) {
  if (consistency.from !== checkpoint.size)
    return bad(`the consistency proof starts at ${consistency.from}, not at the receipt's checkpoint ${checkpoint.size}`);
  const later = consistency.toCheckpoint === null ? { error: 'no signed note' } : readNote(consistency.toCheckpoint, key);
  if (later.error) return bad(`later checkpoint: ${later.error}`);
  if (later.size !== consistency.to) return bad('the later note is not of the proof’s size');
  const proof = consistency.proof.map((hash) => Buffer.from(hash, 'base64'));
  if (!verifyConsistency(checkpoint.size, later.size, proof, checkpoint.root, later.root))
    return bad(`checkpoint ${later.size}'s log does not extend checkpoint ${checkpoint.size}'s`);
  report.checked.push(`checkpoint ${later.size} extends checkpoint ${checkpoint.size}: the row is in it too`);
}
