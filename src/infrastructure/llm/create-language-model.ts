import type { LanguageModel } from '../../application/agent/ports/language-model.port';
import type { AppConfig } from '../config/app-config';
import { OfflineLanguageModel } from './offline/offline-language-model';

/**
 * The model LLM_PROVIDER names. A provider's SDK is loaded only when it is the one
 * configured: each takes 50–100 ms to load, on every start. SDK retries are off: the adapter
 * retries itself, so that a wait never outlives the turn's deadline.
 */
export async function createLanguageModel(config: AppConfig): Promise<LanguageModel> {
  const { llm } = config;
  switch (llm.provider) {
    case 'offline':
      return new OfflineLanguageModel(llm.streamWordDelayMs);
    case 'openai':
    case 'azure-openai':
      return (await import('./openai/create-openai-model.js')).createOpenAiModel(llm);
    case 'gemini':
      return (await import('./gemini/create-gemini-model.js')).createGeminiModel(llm);
  }
}
