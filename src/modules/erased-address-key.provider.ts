import { Logger, type Provider } from '@nestjs/common';
import { AppConfig } from '../infrastructure/config/app-config';
import { resolveJwtSecret } from '../infrastructure/config/jwt-secret';
import { ErasedAddressKey } from '../infrastructure/security/erased-address-key';

/**
 * The key erased do-not-contact entries are hashed under, derived from the service's secret: the
 * erasure (PrivacyModule) hashes with it, the outreach checks (OutreachModule) compare with it,
 * in every process that shares JWT_SECRET.
 */
export const erasedAddressKeyProvider: Provider = {
  provide: ErasedAddressKey,
  useFactory: async (config: AppConfig): Promise<ErasedAddressKey> =>
    ErasedAddressKey.derive(await resolveJwtSecret(config, (message) => new Logger('ErasedAddressKey').warn(message))),
  inject: [AppConfig],
};
