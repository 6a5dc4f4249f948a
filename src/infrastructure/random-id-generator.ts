import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { IdGenerator } from '../application/shared/ports/id-generator.port';

@Injectable()
export class RandomIdGenerator extends IdGenerator {
  next(): string {
    return randomUUID();
  }
}
