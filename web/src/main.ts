import './style.css';
import {
  type ChatEvent,
  type Conversation,
  type Message,
  type Session,
  type Task,
  type ToolCall,
  listConversations,
  listMessages,
  listTasks,
  loadSession,
  login,
  register,
  saveSession,
  streamChat,
} from './api';
import { auditView } from './audit';
import { campaignsView } from './campaigns';
import { h, newestOnly } from './dom';
import { alertBox, errorText, sessionEnded } from './feedback';

const root = document.getElementById('app')!;

type PageName = 'chat' | 'campaigns' | 'audit';

/** The page the hash names; the audit page exists for admins only (the API refuses others anyway). */
function currentPage(session: Session): PageName {
  if (location.hash === '#campaigns') return 'campaigns';
  if (location.hash === '#audit' && session.role === 'admin') return 'audit';
  return 'chat';
}

function signOut(): void {
  saveSession(null);
  render();
}

/** The API answered 401 (the token expired or was revoked): back to sign-in, saying why. */
function sessionExpired(): void {
  saveSession(null);
  render('Your session has ended. Please sign in again.');
}

function render(notice?: string): void {
  const session = loadSession();
  if (!session) return root.replaceChildren(h('main', {}, authView(notice)));
  const page = currentPage(session);
  const main =
    page === 'campaigns'
      ? campaignsView(session, sessionExpired)
      : page === 'audit'
        ? auditView(session, sessionExpired)
        : consoleView(session);
  root.replaceChildren(headerView(session, page), main);
}

function headerView(session: Session, page: PageName): HTMLElement {
  const link = (name: PageName, text: string): HTMLElement =>
    h('a', { href: `#${name}`, ...(page === name ? { 'aria-current': 'page' } : {}) }, text);
  return h(
    'header',
    {},
    h('h1', {}, 'Bridle'),
    h(
      'nav',
      { 'aria-label': 'Main' },
      link('chat', 'Chat'),
      link('campaigns', 'Campaigns'),
      session.role === 'admin' && link('audit', 'Audit'),
    ),
    h('span', { class: 'who' }, session.email),
    h('button', { type: 'button', class: 'secondary', onclick: signOut }, 'Sign out'),
  );
}

function authView(notice?: string): HTMLElement {
  const email = h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'username', required: true });
  const password = h('input', {
    id: 'password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    minlength: '8',
    required: true,
  });
  const status = h('div', { 'aria-live': 'polite' }, notice && h('p', { class: 'notice' }, notice));
  const form = h(
    'form',
    { class: 'auth', 'aria-labelledby': 'auth-title' },
    h('h1', { id: 'auth-title' }, 'Bridle console'),
    h('label', { for: 'email' }, 'Email'),
    email,
    h('label', { for: 'password' }, 'Password (at least 8 characters)'),
    password,
    status,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', value: 'login' }, 'Sign in'),
      h('button', { type: 'submit', value: 'register', class: 'secondary' }, 'Create account'),
    ),
  );
  form.addEventListener('submit', (event: SubmitEvent) => {
    event.preventDefault();
    const action = (event.submitter as HTMLButtonElement | null)?.value ?? 'login';
    status.replaceChildren();
    void (async () => {
      try {
        if (action === 'register') {
          await register(email.value, password.value);
          password.value = '';
          status.replaceChildren(h('p', { class: 'notice' }, 'Account created. Sign in with your new password.'));
          password.focus();
        } else {
          saveSession(await login(email.value, password.value));
          render();
        }
      } catch (error) {
        status.replaceChildren(alertBox(error));
      }
    })();
  });
  return form;
}

function toolCard(call: ToolCall): HTMLElement {
  // A delete the assistant holds back until the person confirms is not a failure to show in red.
  const awaiting = call.error?.code === 'CONFIRMATION_REQUIRED';
  const outcome = call.success ? 'done' : awaiting ? 'awaiting your confirmation' : `failed: ${call.error?.code ?? 'error'}`;
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments, null, 2);
  const detail = call.success ? JSON.stringify(call.result ?? null, null, 2) : (call.error?.message ?? '');
  return h(
    'details',
    { class: 'tool-card' },
    h(
      'summary',
      {},
      h('strong', {}, call.tool),
      ' · ',
      h('span', { class: call.success || awaiting ? '' : 'failed' }, outcome),
      ` · ${call.durationMs} ms`,
    ),
    h('pre', {}, `arguments: ${args}\n${call.success ? 'result' : 'error'}: ${detail}`),
  );
}

function consoleView(session: Session): HTMLElement {
  let conversationId: string | undefined;
  let busy = false;

  const conversationList = h('ul', { class: 'plain conversations' });
  const taskList = h('ul', { class: 'plain tasks', 'aria-live': 'polite' });
  const taskStatus = h('div');
  const log = h('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
  const input = h('input', { id: 'chat-message', name: 'message', autocomplete: 'off', maxlength: '2000', required: true });
  const sendButton = h('button', { type: 'submit' }, 'Send');
  const composer = h('form', { class: 'composer' }, h('div', {}, h('label', { for: 'chat-message' }, 'Message'), input), sendButton);

  function failed(error: unknown): boolean {
    if (sessionEnded(error)) sessionExpired();
    return sessionEnded(error);
  }

  async function refreshTasks(): Promise<void> {
    try {
      const tasks = await listTasks(session);
      taskStatus.replaceChildren();
      taskList.replaceChildren(...(tasks.length === 0 ? [h('li', {}, 'No tasks yet.')] : tasks.map((task) => taskItem(task))));
    } catch (error) {
      if (!failed(error)) taskStatus.replaceChildren(alertBox(error));
    }
  }

  function taskItem(task: Task): HTMLElement {
    return h(
      'li',
      { 'data-number': String(task.number) },
      h('span', { class: 'number' }, `${task.number}.`),
      h('span', { class: task.completed ? 'done' : '' }, task.title),
      task.completed && h('span', { class: 'visually-hidden' }, '(completed)'),
      h('span', { class: 'priority' }, task.priority),
    );
  }

  let olderCursor: string | null = null;
  const olderConversations = h(
    'button',
    { type: 'button', class: 'secondary', hidden: true, onclick: () => void loadConversations(false) },
    'Show older conversations',
  );
  const conversationPages = newestOnly();
  let listCurrent = conversationPages.begin();

  /** The most recent conversations (`fresh`), or the next older page below them. */
  async function loadConversations(fresh: boolean): Promise<void> {
    // An older page that arrives after the list was reloaded from the top is dropped.
    if (fresh) listCurrent = conversationPages.begin();
    const current = listCurrent;
    try {
      const page = await listConversations(session, fresh ? null : olderCursor);
      if (!current()) return;
      const items = page.items.map((c) => conversationItem(c));
      if (fresh) conversationList.replaceChildren(...items);
      else conversationList.append(...items);
      olderCursor = page.nextCursor;
      olderConversations.hidden = olderCursor === null;
    } catch (error) {
      failed(error);
    }
  }

  const refreshConversations = () => loadConversations(true);

  function conversationItem(conversation: Conversation): HTMLElement {
    return h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          'aria-current': String(conversation.id === conversationId),
          title: conversation.title,
          onclick: () => void openConversation(conversation.id),
        },
        conversation.title,
      ),
    );
  }

  const history = newestOnly();

  async function openConversation(id: string | undefined): Promise<void> {
    if (busy) return;
    conversationId = id;
    log.replaceChildren();
    void refreshConversations();
    const current = history.begin();
    if (!id) return input.focus();
    try {
      const messages = await listMessages(session, id);
      if (!current()) return;
      messages.forEach((message, index) => log.append(messageView(message, index === messages.length - 1)));
      log.scrollTop = log.scrollHeight;
    } catch (error) {
      if (current() && !failed(error)) log.append(alertBox(error));
    }
  }

  function messageView(message: Message, last: boolean): HTMLElement {
    const bubble = h('div', { class: `message ${message.role}` });
    message.toolCalls.forEach((call) => bubble.append(toolCard(call)));
    bubble.append(h('p', {}, message.content));
    if (last && message.decisionType === 'REQUEST_CONFIRMATION') bubble.append(confirmation());
    return bubble;
  }

  function confirmation(): HTMLElement {
    return h(
      'div',
      { class: 'confirm' },
      h('button', { type: 'button', onclick: () => void send('yes') }, 'Yes, delete'),
      h('button', { type: 'button', class: 'secondary', onclick: () => void send('no') }, 'Cancel'),
    );
  }

  async function send(message: string): Promise<void> {
    if (busy || message.trim() === '') return;
    busy = true;
    sendButton.disabled = true;
    log.querySelectorAll('.confirm').forEach((element) => element.remove());
    log.append(h('div', { class: 'message user' }, h('p', {}, message)));
    const bubble = h('div', { class: 'message assistant', 'aria-busy': 'true' });
    const answer = h('p', {}, '…');
    const cards = new Map<string, HTMLElement>();
    let text = '';
    bubble.append(answer);
    log.append(bubble);
    const onEvent = (event: ChatEvent): void => {
      switch (event.event) {
        case 'tool_call': {
          const pending = h('p', { class: 'tool-card' }, `Running ${event.data.tool}…`);
          cards.set(event.data.tool, pending);
          answer.before(pending);
          break;
        }
        case 'tool_result': {
          const card = toolCard(event.data);
          const pending = cards.get(event.data.tool);
          if (pending) pending.replaceWith(card);
          else answer.before(card);
          cards.delete(event.data.tool);
          break;
        }
        case 'delta':
          text += event.data.text;
          answer.textContent = text;
          break;
        case 'confirmation_required':
          bubble.append(confirmation());
          break;
        case 'error':
          answer.textContent = event.data.message;
          answer.className = 'error';
          answer.setAttribute('role', 'alert');
          break;
        case 'done':
          conversationId = event.data.conversationId;
          if (!text && answer.className !== 'error') answer.textContent = event.data.response;
          if (event.data.warning) bubble.append(h('p', { class: 'warning' }, event.data.warning));
          break;
      }
      log.scrollTop = log.scrollHeight;
    };
    try {
      await streamChat(session, message, conversationId, onEvent);
    } catch (error) {
      if (failed(error)) return;
      answer.textContent = errorText(error);
      answer.className = 'error';
      answer.setAttribute('role', 'alert');
    } finally {
      bubble.removeAttribute('aria-busy');
      busy = false;
      sendButton.disabled = false;
    }
    await Promise.all([refreshTasks(), refreshConversations()]);
  }

  composer.addEventListener('submit', (event) => {
    event.preventDefault();
    const message = input.value;
    input.value = '';
    void send(message).then(() => input.focus());
  });

  void refreshTasks();
  void refreshConversations();

  return h(
    'main',
    { class: 'console', id: 'chat' },
    h(
      'aside',
      { 'aria-labelledby': 'conversations-title' },
      h('h2', { id: 'conversations-title' }, 'Conversations'),
      h('button', { type: 'button', class: 'secondary', onclick: () => void openConversation(undefined) }, 'New conversation'),
      conversationList,
      olderConversations,
    ),
    h('section', { 'aria-labelledby': 'chat-title' }, h('h2', { id: 'chat-title' }, 'Chat'), log, composer),
    h('aside', { 'aria-labelledby': 'tasks-title' }, h('h2', { id: 'tasks-title' }, 'Tasks'), taskStatus, taskList),
  );
}

// A new page takes the focus to its first heading, so keyboard and screen-reader users start there, not at the top.
window.addEventListener('hashchange', () => {
  render();
  const heading = root.querySelector<HTMLElement>('main h2');
  heading?.setAttribute('tabindex', '-1');
  heading?.focus();
});
render();
