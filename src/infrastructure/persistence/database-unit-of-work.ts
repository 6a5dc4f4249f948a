import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '../../application/shared/ports/unit-of-work.port';
import { afterCommit, inTransaction } from './sql';

/** A database transaction that every adapter's statements join while it is open (see `inTransaction`). */
@Injectable()
export class DatabaseUnitOfWork extends UnitOfWork {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    return inTransaction(this.dataSource, work);
  }

  afterCommit(effect: () => void): void {
    afterCommit(effect);
  }
}
