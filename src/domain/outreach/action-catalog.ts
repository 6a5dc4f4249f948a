import { ACTION_CONTRACTS, type ActionContract, type ActionContracts } from './actions';
import { type ActionKind, TASK_ACTION, TASK_TYPES } from './outreach-task';

/**
 * An action a channel brings beside the built-in ones: its name, its contract (with the kind
 * its channel performs), and the task type it does (a lead's step, e.g. `SendSms`).
 */
export interface ChannelActionDescriptor {
  readonly name: string;
  readonly contract: ActionContract & { readonly kind: ActionKind };
  readonly taskType: string;
}

/** The one action a task type is done by, and the kind it meters. */
export interface TaskAction {
  readonly action: string;
  readonly kind: ActionKind;
}

const NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
const TASK_TYPE_PATTERN = /^[A-Z][A-Za-z0-9]{0,31}$/;

/**
 * Every action a cycle may take and every task type a lead's steps may have: the built-in
 * ones (ACTION_CONTRACTS, TASK_ACTION) and those the channels in service declare. Pure data,
 * handed to the proposal check, the planning rules and the prompt. A name or task type given
 * twice refuses the start.
 */
export class ActionCatalog implements ActionContracts {
  private readonly contracts = new Map<string, ActionContract>(Object.entries(ACTION_CONTRACTS));
  private readonly tasks = new Map<string, TaskAction>(Object.entries(TASK_ACTION));

  constructor(added: readonly ChannelActionDescriptor[] = []) {
    for (const { name, contract, taskType } of added) {
      if (!NAME_PATTERN.test(name)) throw new Error(`An action name is lower-case letters, digits and _: ${name}`);
      if (!TASK_TYPE_PATTERN.test(taskType)) throw new Error(`A task type is letters and digits, capitalised: ${taskType}`);
      if (this.contracts.has(name)) throw new Error(`The action ${name} is declared twice`);
      if (this.tasks.has(taskType)) throw new Error(`The task type ${taskType} is declared twice`);
      this.contracts.set(name, contract);
      this.tasks.set(taskType, { action: name, kind: contract.kind });
    }
  }

  /** The contract of an action, or undefined for a name no channel declares. */
  contract(name: unknown): ActionContract | undefined {
    return typeof name === 'string' ? this.contracts.get(name) : undefined;
  }

  /** Every action's name: the built-in ones first, in their order. */
  names(): string[] {
    return [...this.contracts.keys()];
  }

  /** The action a task type is done by. @throws for a type no channel declares (a row of a channel no longer in service) */
  taskAction(type: string): TaskAction {
    const task = this.tasks.get(type);
    if (!task) throw new Error(`No channel in service does ${type} tasks`);
    return task;
  }

  /** Every task type, the built-in ones first, in their order (a lead's default steps). */
  taskTypes(): string[] {
    return [...this.tasks.keys()];
  }

  /** The task types that meter `kind`. */
  taskTypesOf(kind: ActionKind): string[] {
    return [...this.tasks].filter(([, task]) => task.kind === kind).map(([type]) => type);
  }
}

/** Steps a lead may have at most (a task cursor's step is within it). */
export const MAX_STEPS = 16;

/**
 * A lead's steps as an import asks for them (task types, in order): each one a type the
 * catalog knows, none twice, 1 to MAX_STEPS of them. @returns the problem, naming its field, or null.
 */
export function stepsProblem(steps: unknown, catalog: ActionCatalog): { field: string; message: string } | null {
  if (!Array.isArray(steps) || steps.length < 1 || steps.length > MAX_STEPS) {
    return { field: 'steps', message: `steps must be a list of 1 to ${MAX_STEPS} task types` };
  }
  const known = catalog.taskTypes();
  for (const [index, step] of steps.entries()) {
    const field = `steps[${index}]`;
    if (typeof step !== 'string' || !known.includes(step)) return { field, message: `${field} must be one of ${known.join(', ')}` };
    if (steps.indexOf(step) !== index) return { field, message: `${field} repeats ${step}: a lead does each step once` };
  }
  return null;
}

/** The built-in actions alone (no channel added): the default of every rule that takes a catalog. */
export const BUILT_IN_ACTIONS = new ActionCatalog();

/** The built-in task types, in a lead's default order. */
export const BUILT_IN_STEPS: readonly string[] = TASK_TYPES;
