import OpenAI, { AzureOpenAI } from 'openai';
import type { LlmSettings } from '../../config/app-config';
import { OpenAiLanguageModel } from './openai-language-model';

/** OpenAI or Azure OpenAI as configured; loaded by createLanguageModel only when it is the provider. */
export function createOpenAiModel(llm: Extract<LlmSettings, { provider: 'openai' | 'azure-openai' }>): OpenAiLanguageModel {
  if (llm.provider === 'openai') {
    return new OpenAiLanguageModel(new OpenAI({ apiKey: llm.apiKey, baseURL: llm.baseUrl, maxRetries: 0 }), {
      provider: 'openai',
      model: llm.model,
      retry: llm,
    });
  }
  return new OpenAiLanguageModel(
    new AzureOpenAI({ apiKey: llm.apiKey, endpoint: llm.endpoint, deployment: llm.deployment, apiVersion: llm.apiVersion, maxRetries: 0 }),
    { provider: 'azure-openai', model: llm.deployment, retry: llm },
  );
}
