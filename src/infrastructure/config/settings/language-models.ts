import { DEFAULT_SAMPLING, TEMPERATURE_RANGE } from '../../../domain/agent/limits';
import { decimal, httpUrl, oneOf, text, wholeNumber } from './rules';
import { LLM_PROVIDERS, type Setting } from './setting';

/** The Language models section of docs/configuration.md, in its order. */
export const LANGUAGE_MODEL_SETTINGS = {
  LLM_PROVIDER: {
    section: 'Language models',
    ...oneOf(LLM_PROVIDERS),
    default: 'offline',
    doc: '`offline`: a deterministic rule-based model (`src/infrastructure/llm/offline`) with no key and no network. `openai` also covers any OpenAI-compatible server',
  },
  OFFLINE_STREAM_WORD_DELAY_MS: {
    section: 'Language models',
    ...wholeNumber(0, 1_000),
    default: '15',
    provider: 'offline',
    doc: "the offline model streams its answers word by word with this pause between words, as a provider's tokens arrive (`POST …/chat/stream` and the console only; `0`: at once)",
  },
  OPENAI_API_KEY: {
    section: 'Language models',
    ...text(),
    provider: 'openai',
    doc: 'required with `openai`',
  },
  OPENAI_MODEL: {
    section: 'Language models',
    ...text(),
    provider: 'openai',
    doc: 'required with `openai` (e.g. `gpt-4o-mini`)',
  },
  OPENAI_BASE_URL: {
    section: 'Language models',
    ...httpUrl(),
    provider: 'openai',
    defaultText: "the SDK's (OpenAI)",
    doc: 'an OpenAI-compatible server, e.g. Ollama at `http://127.0.0.1:11434/v1`',
  },
  AZURE_OPENAI_API_KEY: {
    section: 'Language models',
    ...text(),
    provider: 'azure-openai',
    doc: 'required with `azure-openai`',
  },
  AZURE_OPENAI_ENDPOINT: {
    section: 'Language models',
    ...httpUrl(),
    provider: 'azure-openai',
    doc: 'required with `azure-openai`',
  },
  AZURE_OPENAI_DEPLOYMENT: {
    section: 'Language models',
    ...text(),
    provider: 'azure-openai',
    doc: 'required with `azure-openai`. Decision logs name the deployment as the model',
  },
  AZURE_OPENAI_API_VERSION: {
    section: 'Language models',
    ...text(),
    provider: 'azure-openai',
    doc: 'required with `azure-openai` (e.g. `2024-10-21`)',
  },
  GEMINI_API_KEY: {
    section: 'Language models',
    ...text(),
    provider: 'gemini',
    doc: 'required with `gemini`',
  },
  GEMINI_MODEL: {
    section: 'Language models',
    ...text(),
    provider: 'gemini',
    doc: 'required with `gemini` (e.g. `gemini-2.5-flash`)',
  },
  GEMINI_BASE_URL: {
    section: 'Language models',
    ...httpUrl(),
    provider: 'gemini',
    defaultText: "the SDK's",
    doc: 'another Gemini API endpoint',
  },
  LLM_TIMEOUT_MS: {
    section: 'Language models',
    ...wholeNumber(1_000, 300_000),
    default: '20000',
    doc: "one attempt of one provider request, stream included. The turn's deadline still applies. Not used by `offline`",
  },
  LLM_MAX_RETRIES: {
    section: 'Language models',
    ...wholeNumber(0, 2),
    default: '2',
    doc: 'retries after a rate limit or a provider error, waiting for `retry-after` or backing off (250 ms, 500 ms). A streamed answer is retried only before its first piece of text',
  },
  LLM_RETRY_MAX_WAIT_MS: {
    section: 'Language models',
    ...wholeNumber(0, 60_000),
    default: '5000',
    doc: 'a `retry-after` longer than this is not waited for: the person is told at once',
  },
  LLM_TEMPERATURE: {
    section: 'Language models',
    ...decimal(TEMPERATURE_RANGE.max),
    default: String(DEFAULT_SAMPLING.temperature),
    doc: 'sampling temperature of chat model calls; a chat request may set its own (`temperature`, 0–2). Outreach planning always uses 0.3',
  },
  LLM_MAX_TOKENS: {
    section: 'Language models',
    ...wholeNumber(16, 32_768),
    default: String(DEFAULT_SAMPLING.maxTokens),
    doc: 'tokens one chat model call may write; a chat request may ask for fewer (`maxTokens`), never more. An answer cut there has `finishReason: length` and a `warning`. Outreach planning always uses 500',
  },
  LLM_PRICE_INPUT_PER_1K: {
    section: 'Language models',
    ...decimal(),
    also: '; set both prices or neither',
    doc: 'price per 1 000 prompt tokens. When both prices are set, `decision_logs.cost` is filled in, `/metrics` counts `bridle_model_cost_total`, and `CHAT_DAILY_COST_BUDGET` may be used',
  },
  LLM_PRICE_OUTPUT_PER_1K: {
    section: 'Language models',
    ...decimal(),
    also: '; set both prices or neither',
    doc: 'price per 1 000 completion tokens',
  },
  CHAT_DAILY_TOKEN_BUDGET: {
    section: 'Language models',
    ...wholeNumber(1_000, 1_000_000_000),
    defaultText: 'unset: no budget',
    doc: 'chat tokens per person per UTC day. Each model call of a turn (summaries included) first reserves its most on `token_ledger`: the prompt at 2 characters a token, plus its maximum output. It then settles to what the provider reported. A call the day cannot cover is not made, and the person is told kindly (`finishReason: budget_spent`). `GET /auth/me` shows `chatBudget`, and `/metrics` counts refusals as `bridle_quota_rejections_total{kind="chat_budget"}`. Outreach planning is not counted',
  },
  CHAT_DAILY_COST_BUDGET: {
    section: 'Language models',
    ...decimal(),
    also: '; needs both `LLM_PRICE_*`',
    defaultText: 'unset: no budget',
    doc: "the same, for cost in the prices' currency",
  },
} as const satisfies Record<string, Setting>;
