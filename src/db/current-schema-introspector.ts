import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  PostgresDialect,
  sql,
  type ColumnMetadata,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

/**
 * PostgreSQL introspection limited to the connection's own schema (`current_schema()`).
 *
 * Kysely's migrator asks the introspector whether its tables exist before it takes its lock, and
 * Kysely's own PostgreSQL introspector reads every table of every schema and resolves each one by
 * name (`has_schema_privilege(nspname, …)`, `pg_get_serial_sequence('schema.table', …)`). A table or
 * schema that another session drops or renames meanwhile (another instance migrating, another test
 * file's schema) then fails our start with `relation "…" does not exist` or `schema "…" does not
 * exist`. This one reads only our schema's tables, joining the catalogs by OID, so DDL elsewhere
 * cannot fail it.
 */
export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db);
    return rows;
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select ns.nspname as schema, c.relname as table, c.relkind as kind,
             a.attname as column, t.typname as type, tns.nspname as type_schema,
             a.attnotnull as not_null, a.atthasdef as has_default,
             (a.attidentity <> '' or pg_get_expr(d.adbin, d.adrelid) like 'nextval(%') as identity,
             col_description(c.oid, a.attnum) as comment
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
        left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        left join pg_catalog.pg_type t on t.oid = a.atttypid
        left join pg_catalog.pg_namespace tns on tns.oid = t.typnamespace
        left join pg_catalog.pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
       where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
       order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, { name: string; schema: string; isView: boolean; columns: ColumnMetadata[] }>();
    for (const row of rows) {
      if (
        !options.withInternalKyselyTables &&
        (row.table === DEFAULT_MIGRATION_TABLE || row.table === DEFAULT_MIGRATION_LOCK_TABLE)
      ) {
        continue;
      }
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.kind === 'v', columns: [] };
        tables.set(row.table, table);
      }
      if (row.column === null || row.type === null) continue;
      table.columns.push({
        name: row.column,
        dataType: row.type,
        ...(row.type_schema === null ? {} : { dataTypeSchema: row.type_schema }),
        isNullable: row.not_null !== true,
        hasDefaultValue: row.has_default === true,
        isAutoIncrementing: row.identity === true,
        ...(row.comment === null ? {} : { comment: row.comment }),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

interface ColumnRow {
  schema: string;
  table: string;
  kind: string;
  column: string | null;
  type: string | null;
  type_schema: string | null;
  not_null: boolean | null;
  has_default: boolean | null;
  identity: boolean | null;
  comment: string | null;
}

/** Kysely's PostgreSQL dialect with the introspector above. */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
