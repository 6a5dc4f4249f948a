import type { LanguageModel } from '../../application/agent/ports/language-model.port';
import type { AppConfig } from '../config/app-config';
import { OfflineLanguageModel } from './offline/offline-language-model';

/** The model LLM_PROVIDER names. */
export function createLanguageModel(config: AppConfig): LanguageModel {
  switch (config.llmProvider) {
    case 'offline':
      return new OfflineLanguageModel();
  }
}
