import { Injectable } from '@nestjs/common';
import type { Page } from '../shared/page';
import { PolicyStore, type PolicyVersionSummary } from './ports/policy-store.port';

/** The stored versions, newest first, without their rules (GetPolicyVersionUseCase has them). Version 0 is not stored. */
@Injectable()
export class ListPolicyVersionsUseCase {
  constructor(private readonly store: PolicyStore) {}

  execute(input: { readonly limit: number; readonly cursor: string | null }): Promise<Page<PolicyVersionSummary>> {
    return this.store.list(input.limit, input.cursor);
  }
}
