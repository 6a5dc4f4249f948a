/** The offline model's name, as decision logs, metrics and LLM_PRICES name it. */
export const OFFLINE_MODEL = 'bridle-offline-1';
