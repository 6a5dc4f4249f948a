import type { ComponentChildren, VNode } from 'preact';

/**
 * The Markdown the assistant's answers may use, and nothing more: paragraphs, line breaks,
 * bulleted and numbered lists, **bold** and `code`. The text becomes Preact nodes, never an
 * HTML string, so whatever the model writes (tags, scripts, entities) shows as text.
 *
 * Hand-written rather than a Markdown library: the libraries turn Markdown into HTML that
 * must then be sanitised (marked + DOMPurify is ~25 KB gzipped), while this subset is 60
 * lines that cannot produce an element outside it.
 */
export function Markdown({ text }: { text: string }) {
  return <>{blocks(text)}</>;
}

type Block = { kind: 'p'; lines: string[] } | { kind: 'ul'; items: string[] } | { kind: 'ol'; items: { n: number; text: string }[] };

// The item starts at its first non-space character, so the spaces before it are read one way.
const BULLET = /^\s*[-*•]\s+(\S.*|)$/;
const NUMBERED = /^\s*(\d{1,4})[.)]\s+(\S.*|)$/;

function parse(text: string): Block[] {
  const out: Block[] = [];
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const last = out[out.length - 1];
    const bullet = BULLET.exec(line);
    const numbered = NUMBERED.exec(line);
    if (line.trim() === '') out.push({ kind: 'p', lines: [] });
    else if (bullet) {
      if (last?.kind === 'ul') last.items.push(bullet[1]);
      else out.push({ kind: 'ul', items: [bullet[1]] });
    } else if (numbered) {
      const item = { n: Number(numbered[1]), text: numbered[2] };
      if (last?.kind === 'ol') last.items.push(item);
      else out.push({ kind: 'ol', items: [item] });
    } else if (last?.kind === 'p') last.lines.push(line);
    else out.push({ kind: 'p', lines: [line] });
  }
  return out.filter((block) => block.kind !== 'p' || block.lines.length > 0);
}

function blocks(text: string): VNode[] {
  return parse(text).map((block, i) => {
    if (block.kind === 'ul') {
      return (
        <ul key={i}>
          {block.items.map((item, j) => (
            <li key={j}>{inline(item)}</li>
          ))}
        </ul>
      );
    }
    if (block.kind === 'ol') {
      return (
        <ol key={i} start={block.items[0].n}>
          {block.items.map((item, j) => (
            <li key={j} value={item.n}>
              {inline(item.text)}
            </li>
          ))}
        </ol>
      );
    }
    return <p key={i}>{block.lines.flatMap((line, j) => (j === 0 ? inline(line) : [<br key={`br${j}`} />, ...inline(line)]))}</p>;
  });
}

/** **bold** and `code`; an unclosed marker stays as typed (mid-stream, it may close later). */
function inline(text: string): ComponentChildren[] {
  const parts: ComponentChildren[] = [];
  const pattern = /\*\*(.+?)\*\*|`([^`]+)`/g;
  let at = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match.index > at) parts.push(text.slice(at, match.index));
    parts.push(match[1] !== undefined ? <strong key={match.index}>{match[1]}</strong> : <code key={match.index}>{match[2]}</code>);
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}
