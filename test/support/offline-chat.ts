import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { AgentLoop } from '../../src/application/agent/agent-loop';
import { ExecuteToolCallUseCase } from '../../src/application/agent/execute-tool-call.use-case';
import { type DailyBudgetLimits, TokenBudget } from '../../src/application/agent/ports/token-budget.port';
import type { AgentSettings } from '../../src/application/agent/agent-settings';
import { SendChatMessageUseCase } from '../../src/application/chat/send-chat-message.use-case';
import { AddTaskUseCase } from '../../src/application/todo/add-task.use-case';
import { CompleteTaskUseCase } from '../../src/application/todo/complete-task.use-case';
import { ListTasksUseCase } from '../../src/application/todo/list-tasks.use-case';
import { loadConfig } from '../../src/infrastructure/config/app-config';
import type { LanguageModel } from '../../src/application/agent/ports/language-model.port';
import { MeteredLanguageModel } from '../../src/infrastructure/llm/metered-language-model';
import { OfflineLanguageModel } from '../../src/infrastructure/llm/offline/offline-language-model';
import { McpToolGateway } from '../../src/infrastructure/mcp/mcp-tool-gateway';
import { RandomIdGenerator } from '../../src/infrastructure/random-id-generator';
import { AjvSchemaValidator } from '../../src/infrastructure/validation/ajv-schema-validator';
import { createToolsMcpServer, inProcessChannel } from '../../src/interfaces/mcp/tools-mcp-server';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryConversationStore } from '../fakes/in-memory-conversation-store';
import { todoToolboxOn } from '../fakes/todo-toolbox';
import { InMemoryTaskRepository } from '../fakes/in-memory-task.repository';
import { RecordingAuditLog } from '../fakes/recording-audit-log';
import { RecordingLogger } from '../fakes/recording-logger';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { RecordingUnitOfWork } from '../fakes/recording-unit-of-work';
import { builtInPolicy, policyGate } from '../fakes/policy';

/** No daily budget (the default: CHAT_DAILY_TOKEN_BUDGET and CHAT_DAILY_COST_BUDGET unset), so nothing is reserved. */
class NoTokenBudget extends TokenBudget {
  readonly limits: DailyBudgetLimits = { tokens: null, cost: null };
  readonly countsMoney = false;

  reserve(): never {
    throw new Error('NoTokenBudget: no budget is set, nothing is reserved');
  }

  settle(): never {
    throw new Error('NoTokenBudget: no budget is set, nothing is settled');
  }

  usedOn(): never {
    throw new Error('NoTokenBudget: no budget is set, nothing is counted');
  }
}

/** The todo assistant's chat core, in memory: what a chat turn over HTTP runs, without Nest, HTTP or a database. */
export interface OfflineChat {
  readonly chat: SendChatMessageUseCase;
  readonly tasks: InMemoryTaskRepository;
  readonly conversations: InMemoryConversationStore;
  readonly addTask: AddTaskUseCase;
  readonly completeTask: CompleteTaskUseCase;
  readonly listTasks: ListTasksUseCase;
  readonly audit: RecordingAuditLog;
  readonly metrics: RecordingMetrics;
  readonly logger: RecordingLogger;
  readonly clock: FixedClock;
  close(): Promise<void>;
}

/**
 * The real chat core over in-memory fakes: the offline model, the agent loop, the todo tools
 * behind the real MCP SDK in this process (as AgentModule links them), the chat use case,
 * with the settings `loadConfig` makes of `env` (the production defaults when empty). The
 * task repository, conversation store, audit log, clock, metrics and logger are the fakes.
 * `languageModel` stands in for the offline model: a provider's adapter (its real SDK against
 * a local server that speaks its wire format), in the integration suite.
 */
export async function startOfflineChat(
  env: Record<string, string> = {},
  options: { languageModel?: LanguageModel } = {},
): Promise<OfflineChat> {
  const config = loadConfig(env);
  if (config.chatDailyBudget.tokens !== null || config.chatDailyBudget.cost !== null || config.prices !== null) {
    throw new Error('startOfflineChat: budgets and prices are not supported here');
  }
  const clock = new FixedClock();
  const metrics = new RecordingMetrics();
  const logger = new RecordingLogger();
  const audit = new RecordingAuditLog([]);
  const tasks = new InMemoryTaskRepository();
  const conversations = new InMemoryConversationStore();

  const addTask = new AddTaskUseCase(tasks, clock);
  const listTasks = new ListTasksUseCase(tasks);
  const completeTask = new CompleteTaskUseCase(tasks, clock);
  const toolbox = todoToolboxOn(tasks, clock);
  const schemas = new AjvSchemaValidator();
  const gate = policyGate(builtInPolicy(toolbox.definitions, config.mcpDestructiveTools), { clock });
  const executor = new ExecuteToolCallUseCase(
    toolbox,
    audit,
    clock,
    metrics,
    { mcpDestructiveTools: config.mcpDestructiveTools },
    new RecordingUnitOfWork(),
    schemas,
    gate,
  );

  // As connectInProcessToolGateway in src/modules/agent.module.ts: the same protocol path as an MCP client, without a socket.
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createToolsMcpServer(executor, inProcessChannel).connect(serverSide);
  const gateway = await McpToolGateway.connect(clientSide);

  const model = new MeteredLanguageModel(options.languageModel ?? new OfflineLanguageModel(), metrics, config.prices);
  const agent = new AgentLoop(model, gateway, clock, logger, schemas);
  const settings: AgentSettings = {
    limits: config.agentLimits,
    sampling: config.llmSampling,
    prices: config.prices,
    turnsPerMinute: config.chatRateLimitPerMinute,
  };
  const chat = new SendChatMessageUseCase(
    conversations,
    agent,
    settings,
    clock,
    new RandomIdGenerator(),
    metrics,
    new NoTokenBudget(),
    toolbox,
    gate,
    logger,
  );

  return {
    chat,
    tasks,
    conversations,
    addTask,
    completeTask,
    listTasks,
    audit,
    metrics,
    logger,
    clock,
    close: () => gateway.close(),
  };
}
