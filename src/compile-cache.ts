import { enableCompileCache } from 'node:module';

/**
 * Imported first by every entry point, before the modules it caches: V8 keeps the compiled
 * code of every module on disk (NODE_COMPILE_CACHE, else the OS's temp folder), so a start
 * after the first skips compiling them. Node checks each file's contents: a rebuilt file is
 * compiled again. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
enableCompileCache();
