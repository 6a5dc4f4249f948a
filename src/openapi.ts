import 'reflect-metadata';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadConfig } from './infrastructure/config/app-config';
import { buildOpenApiDocument } from './interfaces/http/openapi';
import { AppModule } from './modules/app.module';

/**
 * The document the server serves at /docs-json, without a server or a database: the real
 * module graph in Nest's preview mode, which resolves every module and controller but
 * instantiates no provider, so nothing connects and nothing listens. No route depends on
 * the configuration, so a fixed one stands in for the environment's; its data folder is
 * never opened. `npm run api:types` writes the result and generates the console's types.
 */
export async function openApiDocument(): Promise<OpenAPIObject> {
  const config = loadConfig({ LOG_LEVEL: 'silent', BRIDLE_DATA_DIR: join(tmpdir(), 'bridle-openapi-unused') });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}
