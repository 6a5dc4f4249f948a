import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type DynamicModule, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { ExpressLoader, type ServeStaticModuleOptions } from '@nestjs/serve-static';

/** The folder holding package.json, above this file wherever it runs from: src/ (tests) or the bundle in dist/server/. */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** `web/dist` of the repository the service runs from. */
export const WEB_CONSOLE_ROOT = join(packageRoot(__dirname), 'web', 'dist');

/**
 * Registers @nestjs/serve-static's Express loader when the module initialises.
 * `ServeStaticModule.forRoot` picks its loader while providers are created, which under
 * `Test.createTestingModule(…).compile()` is before the app has an HTTP adapter, so it
 * silently serves nothing there; at init the adapter exists in the service and in tests.
 */
class WebConsoleServer implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly applicationConfig: ApplicationConfig,
    private readonly options: ServeStaticModuleOptions,
  ) {}

  onModuleInit(): void {
    new ExpressLoader().register(this.adapterHost.httpAdapter, this.applicationConfig, [this.options]);
  }
}

class MissingWebConsoleWarning implements OnModuleInit {
  constructor(private readonly root: string) {}

  // Logged at init rather than in register() so it goes through the app's logger (pino).
  onModuleInit(): void {
    new Logger(WebModule.name).warn(`No web console build in ${this.root}: run \`npm run build:web\` to serve it at /`);
  }
}

/**
 * The web console (built from `web/` by `npm run build:web`) as static files at `/`.
 * Only `/` answers with index.html: the console is one page, so there is no catch-all
 * that could shadow `/api`, `/auth`, `/admin`, `/mcp`, `/docs`, `/metrics` or `/health`;
 * any other path is a file of the build or falls through to Nest's own 404.
 * Without a build the API still starts, with a warning.
 */
@Module({})
export class WebModule {
  static register(root: string = WEB_CONSOLE_ROOT): DynamicModule {
    if (!existsSync(join(root, 'index.html'))) {
      return {
        module: WebModule,
        providers: [{ provide: MissingWebConsoleWarning, useValue: new MissingWebConsoleWarning(root) }],
      };
    }
    const options: ServeStaticModuleOptions = {
      rootPath: root,
      renderPath: '/',
      serveStaticOptions: { index: false, fallthrough: true },
    };
    return {
      module: WebModule,
      providers: [
        {
          provide: WebConsoleServer,
          useFactory: (adapterHost: HttpAdapterHost, applicationConfig: ApplicationConfig) =>
            new WebConsoleServer(adapterHost, applicationConfig, options),
          inject: [HttpAdapterHost, ApplicationConfig],
        },
      ],
    };
  }
}
