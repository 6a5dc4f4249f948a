import type { LanguageModel } from '../../application/agent/ports/language-model.port';
import type { AppConfig } from '../config/app-config';
import { OfflineLanguageModel } from './offline/offline-language-model';
import { OpenAiLanguageModel } from './openai/openai-language-model';
import { GoogleGenAI } from '@google/genai';
import OpenAI, { AzureOpenAI } from 'openai';
import { GeminiLanguageModel } from './gemini/gemini-language-model';

/**
 * The model LLM_PROVIDER names. SDK retries are off: the adapter retries itself, so that a
 * wait never outlives the turn's deadline.
 */
export function createLanguageModel(config: AppConfig): LanguageModel {
  const { llm } = config;
  switch (llm.provider) {
    case 'offline':
      return new OfflineLanguageModel(llm.streamWordDelayMs);
    case 'openai':
      return new OpenAiLanguageModel(new OpenAI({ apiKey: llm.apiKey, baseURL: llm.baseUrl, maxRetries: 0 }), {
        provider: 'openai',
        model: llm.model,
        retry: llm,
      });
    case 'azure-openai':
      return new OpenAiLanguageModel(
        new AzureOpenAI({
          apiKey: llm.apiKey,
          endpoint: llm.endpoint,
          deployment: llm.deployment,
          apiVersion: llm.apiVersion,
          maxRetries: 0,
        }),
        { provider: 'azure-openai', model: llm.deployment, retry: llm },
      );
    case 'gemini':
      return new GeminiLanguageModel(
        new GoogleGenAI({
          apiKey: llm.apiKey,
          httpOptions: { ...(llm.baseUrl ? { baseUrl: llm.baseUrl } : {}), retryOptions: { attempts: 1 } },
        }),
        llm.model,
        llm,
      );
  }
}
