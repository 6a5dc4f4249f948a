import { GoogleGenAI } from '@google/genai';
import type { LlmSettings } from '../../config/app-config';
import { GeminiLanguageModel } from './gemini-language-model';

/** Gemini as configured; loaded by createLanguageModel only when it is the provider. */
export function createGeminiModel(llm: Extract<LlmSettings, { provider: 'gemini' }>): GeminiLanguageModel {
  return new GeminiLanguageModel(
    new GoogleGenAI({
      apiKey: llm.apiKey,
      httpOptions: { ...(llm.baseUrl ? { baseUrl: llm.baseUrl } : {}), retryOptions: { attempts: 1 } },
    }),
    llm.model,
    llm,
  );
}
