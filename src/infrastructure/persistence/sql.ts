/** Runs one SQL statement: a DataSource, or a transaction's EntityManager. */
export type Sql = { query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T> };
