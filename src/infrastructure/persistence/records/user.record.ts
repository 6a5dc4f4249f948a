import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from '../../../domain/identity/user';

@Entity('users')
export class UserRecord {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 254 })
  email!: string;

  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  /** The last task number handed out to this user. */
  @Column({ name: 'task_counter', type: 'integer' })
  taskCounter!: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
