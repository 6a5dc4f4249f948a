import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditTree } from '../../../application/audit/ports/audit-tree.port';
import type { TileKey } from '../../../domain/audit/merkle-tiles';
import { readTiles, treeSize } from '../tables/audit-tree-tiles';

/** `audit_tree_tiles` (migration 1767981600000): one statement per read, whatever the tree's size. */
@Injectable()
export class PostgresAuditTree extends AuditTree {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  tiles(keys: readonly TileKey[]): Promise<ReadonlyMap<string, Uint8Array>> {
    return readTiles(this.dataSource, keys);
  }

  size(): Promise<number> {
    return treeSize(this.dataSource);
  }
}
