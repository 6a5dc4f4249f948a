import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from './infrastructure/config/app-config';
import {
  ADMIN_USAGE,
  type AdminCommandIo,
  AdminUsageError,
  parseAdminCommand,
  runAdminCommand,
  runOfflineAdminCommand,
} from './interfaces/cli/admin-command';
import { AdminCommandModule, AuditDigestCheckModule } from './modules/admin-command.module';

/** `npm run admin -- <command>`: the operator's accounts, admin roles and audit chain, on the configured database. */
async function main(): Promise<number> {
  let command;
  try {
    command = parseAdminCommand(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof AdminUsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${ADMIN_USAGE}\n`);
    return 2;
  }
  if (command.name === 'help') {
    process.stdout.write(`${ADMIN_USAGE}\n`);
    return 0;
  }
  const io: AdminCommandIo = {
    operator: operatorName(),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    readStdin,
    readFile: (path) => readFile(path, 'utf8'),
  };
  if (command.name === 'audit-check-digest') {
    // The auditor's machine: no configuration, no database.
    const offline = await NestFactory.createApplicationContext(AuditDigestCheckModule, { logger: false, abortOnError: false });
    try {
      return await runOfflineAdminCommand(command, offline, io);
    } finally {
      await offline.close();
    }
  }
  const config = loadConfig(process.env);
  // No logger: the command's output is its answer, not the framework's start-up lines.
  const app = await NestFactory.createApplicationContext(AdminCommandModule.register(config), { logger: false, abortOnError: false });
  try {
    return await runAdminCommand(command, app, io);
  } finally {
    await app.close();
  }
}

function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`Bridle admin command failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
