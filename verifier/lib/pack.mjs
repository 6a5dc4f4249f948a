// Verifies an export pack (pack.json, rows.ndjson, checkpoints.ndjson) with the public key alone.
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { checkDigestLine, readKeptCheckpoints } from './checkpoints.mjs';
import { CompactTree, leafHash, sha256, verifyConsistency } from './merkle.mjs';

const LINE = /^[0-9a-f]{64}$/;

/**
 * The report: `ok`, `firstBadPosition` (the first chain position that differs, or null),
 * counts, and one sentence per problem (`problems`) and per check (`checked`).
 */
export async function verifyPack(dir, key, keptFiles = []) {
  const manifest = JSON.parse(readFileSync(join(dir, 'pack.json'), 'utf8'));
  if (manifest.format !== 'bridle-audit-pack/v1') throw new Error(`${dir}/pack.json: not a bridle-audit-pack/v1`);
  const report = {
    ok: true,
    firstBadPosition: null,
    rows: 0,
    committed: 0,
    legacy: 0,
    pruned: 0,
    erased: 0,
    checkpoints: 0,
    problems: [],
    checked: [],
  };
  const bad = (position, problem) => {
    report.ok = false;
    report.problems.push(problem);
    if (position !== null && (report.firstBadPosition === null || position < report.firstBadPosition)) report.firstBadPosition = position;
  };

  // 1. Every checkpoint's signatures; the ones the range covers are then checked against the rebuilt tree.
  const signed = new Map();
  for (const line of readFileSync(join(dir, 'checkpoints.ndjson'), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const checked = checkDigestLine(JSON.parse(line), key);
    report.checkpoints += 1;
    if (checked.error) bad(null, checked.error);
    else signed.set(checked.size, checked);
  }
  const kept = keptFiles.flatMap((file) =>
    readKeptCheckpoints(readFileSync(file, 'utf8'), key).map((checkpoint) => ({ ...checkpoint, file })),
  );
  for (const checkpoint of kept) if (checkpoint.error) bad(null, `${checkpoint.file}: ${checkpoint.error}`);

  // 2. The rows in order: each link follows the one before and hashes to its row; each is a leaf.
  const tree = new CompactTree(
    manifest.from - 1,
    manifest.leftSubtrees.map((hash) => Buffer.from(hash, 'base64')),
  );
  const roots = new Map([[tree.size, tree.root()]]);
  const linkAt = new Map();
  const wanted = new Set([...signed.keys(), ...kept.filter((c) => !c.error).map((c) => c.size), manifest.to]);
  let expected = manifest.from;
  let prevHash = manifest.prevHash;
  const lines = createInterface({ input: createReadStream(join(dir, 'rows.ndjson')), crlfDelay: Infinity });
  for await (const text of lines) {
    if (text === '') continue;
    const row = JSON.parse(text);
    if (row.position !== expected) {
      bad(expected, `position ${expected}: missing from the pack (next line is position ${row.position})`);
      break;
    }
    checkRow(row, prevHash, manifest, report, bad);
    tree.append(leafHash(row.hash));
    if (wanted.has(row.position)) {
      roots.set(row.position, tree.root());
      linkAt.set(row.position, row);
    }
    prevHash = row.hash;
    expected += 1;
  }
  if (expected <= manifest.to && report.firstBadPosition === null)
    bad(expected, `position ${expected}: the pack ends before its range's end, ${manifest.to}`);

  // 3. Roots: every signed checkpoint the range reaches, and the tail's consistency proof.
  for (const [size, checkpoint] of signed) checkRoot(size, checkpoint, roots, linkAt, report, bad, 'checkpoint');
  if (manifest.tail !== null && roots.has(manifest.to)) {
    const next = signed.get(manifest.tail.treeSize);
    const proof = manifest.tail.proof.map((hash) => Buffer.from(hash, 'base64'));
    if (next === undefined || next.root === null) bad(null, `tail: no signed checkpoint of size ${manifest.tail.treeSize} in the pack`);
    else if (!verifyConsistency(manifest.to, next.size, proof, roots.get(manifest.to), next.root))
      bad(manifest.to, `tail: positions ${manifest.from}–${manifest.to} are not a prefix of checkpoint ${next.size}'s tree`);
    else {
      report.checked.push(`rows up to ${manifest.to} are in checkpoint ${next.size}'s tree (consistency proof)`);
      roots.set(next.size, next.root);
    }
  }
  const lastSigned = Math.max(0, ...[...signed.keys()].filter((size) => roots.has(size)), manifest.tail?.treeSize ?? 0);
  if (lastSigned < manifest.to)
    report.checked.push(`positions ${lastSigned + 1}–${manifest.to}: chained, under no signed checkpoint in the pack`);

  // 4. The auditor's kept checkpoints: the log must still extend each of them.
  for (const checkpoint of kept.filter((c) => !c.error)) checkKept(checkpoint, manifest, roots, linkAt, signed, report, bad);
  return report;
}

function checkRow(row, prevHash, manifest, report, bad) {
  report.rows += 1;
  if (!LINE.test(row.hash) || row.prevHash !== prevHash)
    return bad(row.position, `position ${row.position}: its link does not follow the link before (prevHash)`);
  if (row.erasedAt) report.erased += 1;
  if (row.form === 'committed') {
    report.committed += 1;
    const hash = sha256(Buffer.from(row.prevHash + row.canonical, 'utf8')).toString('hex');
    if (hash !== row.hash)
      return bad(row.position, `position ${row.position} (seq ${row.seq}): the row does not hash to its link (altered)`);
    if (JSON.parse(row.canonical).seq !== row.seq) return bad(row.position, `position ${row.position}: its row is not seq ${row.seq}`);
  } else if (row.form === 'pruned') {
    report.pruned += 1;
    if (manifest.prunedBefore === null || row.position >= manifest.prunedBefore)
      return bad(row.position, `position ${row.position} (seq ${row.seq}): the row is gone, and not behind the retention horizon`);
  } else if (row.form === 'legacy' || row.form === 'erased-legacy') report.legacy += 1;
  else return bad(row.position, `position ${row.position}: unknown form ${row.form}`);
}

function checkRoot(size, checkpoint, roots, linkAt, report, bad, what) {
  if (!roots.has(size)) return;
  const link = linkAt.get(size);
  if (link !== undefined && checkpoint.headHash !== null && (link.hash !== checkpoint.headHash || link.seq !== checkpoint.seq))
    return bad(size, `${what} ${size}: the link at its position is not the one it signed`);
  if (checkpoint.root !== null && !roots.get(size).equals(checkpoint.root))
    return bad(size, `${what} ${size}: the rows' tree does not give its signed root`);
  report.checked.push(`${what} ${size}: signed, and the rows give its ${checkpoint.root === null ? 'head hash' : 'root'}`);
}

function checkKept(checkpoint, manifest, roots, linkAt, signed, report, bad) {
  const { size } = checkpoint;
  if (size > manifest.head)
    return bad(
      manifest.head + 1,
      `kept checkpoint ${size}: the log now ends at position ${manifest.head}; positions ${manifest.head + 1}–${size} were cut`,
    );
  if (roots.has(size)) {
    const before = report.problems.length;
    checkRoot(
      size,
      checkpoint,
      roots,
      linkAt,
      report,
      (position, problem) => {
        // Name the first position that differs: a bad row at or before it if the pack shows one, else after the last signed size that agrees.
        const agreed = Math.max(
          manifest.from - 1,
          ...[...signed.keys()].filter((s) => s < size && roots.has(s) && signed.get(s).root?.equals(roots.get(s))),
        );
        bad(report.firstBadPosition ?? agreed + 1, `${problem}: the log was rewritten between positions ${agreed + 1} and ${size}`);
      },
      'kept checkpoint',
    );
    if (report.problems.length === before) report.checked.push(`kept checkpoint ${size}: the log extends it`);
    return;
  }
  bad(
    null,
    `kept checkpoint ${size}: outside this pack's range (${manifest.from - 1}–${manifest.to}): not checked; export a range that reaches it`,
  );
}
