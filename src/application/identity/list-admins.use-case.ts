import { Injectable } from '@nestjs/common';
import { type AccountView, toAccountView } from './account-view';
import { UserRepository } from './ports/user-repository.port';

/** The accounts that hold the admin role, by email. */
@Injectable()
export class ListAdminsUseCase {
  constructor(private readonly users: UserRepository) {}

  async execute(): Promise<AccountView[]> {
    return (await this.users.findByRole('admin')).map(toAccountView);
  }
}
