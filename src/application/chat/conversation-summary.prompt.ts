/** The longest summary kept: it goes into every later request of the conversation. */
export const SUMMARY_MAX_CHARS = 1_500;

/** Asks for a summary of a conversation's older part, which later turns read in its place. */
export const CONVERSATION_SUMMARY_PROMPT = `You summarise the older part of a conversation between a person and their todo-list assistant.
The summary replaces those messages for the assistant, so keep what later messages may refer to: what the person asked for,
which tasks were added, completed, changed or deleted (by number and title), questions still open, and preferences they stated.
Leave out greetings and anything already undone or superseded. Plain sentences, no lists of tool calls, under ${SUMMARY_MAX_CHARS} characters.
The text may begin with the summary made so far: fold it in. Lines beginning "Done:" say what the assistant's tools changed.`;

/** Where the assistant reads the summary: after its instructions. */
export function withSummary(systemPrompt: string, summary: string | null): string {
  return summary === null ? systemPrompt : `${systemPrompt}\n\nEarlier in this conversation (a summary of older messages):\n${summary}`;
}
