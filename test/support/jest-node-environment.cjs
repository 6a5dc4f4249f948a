const { TestEnvironment } = require('jest-environment-node');

const UNDICI_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * Jest's node environment, plus Node's own fetch dispatcher on the sandbox global:
 * @google/genai looks it up on globalThis, which under Jest is the sandbox, not Node's.
 */
class NodeEnvironmentWithFetchDispatcher extends TestEnvironment {
  async setup() {
    await super.setup();
    // Touching fetch and Headers makes Node load undici, which registers its dispatcher.
    void globalThis.fetch;
    new Headers();
    this.global[UNDICI_DISPATCHER] = globalThis[UNDICI_DISPATCHER];
  }
}

module.exports = NodeEnvironmentWithFetchDispatcher;
