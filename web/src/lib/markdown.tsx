import { markdownHtml } from './markdown-html';

/**
 * The assistant's answers as GitHub-flavoured Markdown, made safe HTML by markdownHtml
 * (markdown-html.ts): nothing the model writes runs, loads or imitates the console, and its
 * links go only to http(s) addresses shown in full.
 */
export function Markdown({ text, class: className, role }: { text: string; class?: string; role?: 'alert' }) {
  return <div class={className} role={role} dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;
}
