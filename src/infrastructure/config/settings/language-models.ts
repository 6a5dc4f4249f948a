import { DEFAULT_SAMPLING, TEMPERATURE_RANGE } from '../../../domain/agent/limits';
import { decimal, httpUrl, oneOf, pattern, priceTable, text, wholeNumber } from './rules';
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
  LLM_PRICES: {
    section: 'Language models',
    ...priceTable(),
    defaultText: 'unset: no prices, no cost counted',
    doc:
      'each model\'s price a million prompt (`input`) and completion (`output`) tokens, as JSON: `{"gpt-4o-mini": {"input": 0.15, "output": 0.60}}`. ' +
      'It must name the configured model (`OPENAI_MODEL`, `AZURE_OPENAI_DEPLOYMENT`, `GEMINI_MODEL`, or `bridle-offline-1`), else Bridle does not start. ' +
      'A call is priced at the model that answered it when the table names that one (a provider may answer with a dated snapshot), else at the configured one. ' +
      'Costs are counted exactly (at most 6 decimals a million tokens is a whole number of 10⁻¹² a token) and rounded only where a person reads them, half up to the cent. ' +
      "With prices, every model call's cost is on its decision row (`decision_logs.cost`), its trace span (`bridle.model.cost`) and in `/metrics` (`bridle_model_cost_total`), " +
      "each person's spend is counted by UTC month (`month_ledger`), and `CHAT_MONTHLY_BUDGET`, `CHAT_DAILY_COST_BUDGET` and per-person budgets may be used",
  },
  LLM_PRICES_CURRENCY: {
    section: 'Language models',
    ...pattern(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code in capitals, such as USD or EUR', 'ISO 4217 code'),
    default: 'USD',
    doc: 'the currency of `LLM_PRICES` and of every budget in money: how amounts are written for people (`€8.12`)',
  },
  LLM_PRICE_INPUT_PER_1K: {
    section: 'Language models',
    ...decimal(),
    also: '; set both prices or neither; not with `LLM_PRICES`',
    doc: 'the older way to price the configured model alone: its price per 1 000 prompt tokens. Both set, they are `LLM_PRICES` naming the configured model at 1 000 times these (at most 9 decimals)',
  },
  LLM_PRICE_OUTPUT_PER_1K: {
    section: 'Language models',
    ...decimal(),
    also: '; set both prices or neither; not with `LLM_PRICES`',
    doc: 'the same, per 1 000 completion tokens',
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
    also: '; needs prices',
    defaultText: 'unset: no budget',
    doc: "the same, for cost in the prices' currency",
  },
  CHAT_MONTHLY_BUDGET: {
    section: 'Language models',
    ...decimal(1_000_000_000),
    also: '; needs prices',
    defaultText: 'unset: no budget',
    doc:
      "each person's chat budget for a UTC calendar month, in the prices' currency, unless an admin set their own (`PUT /admin/users/{userId}/budget`). " +
      'Each model call of a turn reserves its most on `month_ledger` first and settles to its cost; a call the month cannot cover is not made ' +
      '(`finishReason: budget_spent`). A policy can ask the person or refuse past a share of it (`when: {budgetUsed: {atLeastPercent: 80}}`, docs/policies.md). ' +
      "`GET /auth/me` shows the month's spend",
  },
} as const satisfies Record<string, Setting>;
