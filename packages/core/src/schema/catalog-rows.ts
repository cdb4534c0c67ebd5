/** The shape of one row of {@link CATALOG_QUERY}. */
export interface CatalogColumn {
  readonly name: string
  /** The column's own type, `schema.name` as `quote_ident` spells them (a domain's name for a domain). */
  readonly qualifiedType: string
  /** When the column's own type is an array: its element type, spelled the same way. */
  readonly qualifiedElemType: string | null
  /** The column's own type, or its element type, is a domain. */
  readonly isDomain: boolean
  /** The type values are written in: through domains, and for arrays the element's (see CATALOG_QUERY). */
  readonly baseSchema: string
  readonly baseName: string
  /** `b` base, `e` enum, `r` range, `m` multirange, `c` composite. */
  readonly baseTyptype: string
  /** The typmod of the column, or of the innermost domain; -1 for none. */
  readonly typmod: number
  /** True for an array column, also through a domain over an array. */
  readonly isArray: boolean
  /** The array element delimiter of the base type. */
  readonly delimiter: string
  readonly nullable: boolean
  readonly hasDefault: boolean
  /** '' none, 'a' always, 'd' by default. */
  readonly identity: string
  /** '' none, 's' stored, 'v' virtual. */
  readonly generated: string
  /** A generated column's: the columns its expression reads (database names); null otherwise. */
  readonly generatedFrom?: string[] | null
  /** The sequence that fills the column (see CATALOG_QUERY), quoted and qualified. */
  readonly sequence: string | null
  /** Whether the session's role may draw from `sequence` (USAGE or UPDATE on it); null without one. */
  readonly sequenceUsable: boolean | null
  readonly enumLabels: string[] | null
}

export interface CatalogForeignKey {
  readonly name: string
  readonly columns: string[]
  readonly targetSchema: string
  readonly targetName: string
  readonly targetColumns: string[]
  readonly deferrable: boolean
  readonly initiallyDeferred: boolean
  /** a no action, r restrict, c cascade, n set null, d set default. */
  readonly onDelete: string
  /** A key every partition declares: each one's name (see `partitionForeignKeys`). */
  readonly aliases?: readonly string[]
}

/** A leaf partition of a partitioned table and its foreign keys (targets as for the table's own). */
export interface CatalogPartition {
  readonly name: string
  readonly schema: string
  readonly foreignKeys: CatalogForeignKey[]
}

export interface CatalogTable {
  readonly schema: string
  readonly name: string
  /** `r` table, `p` partitioned table, `v` view, `m` materialized view. */
  readonly kind: string
  readonly columns: CatalogColumn[]
  readonly primary_key: string[] | null
  readonly foreign_keys: CatalogForeignKey[]
  /** A partitioned table's leaf partitions, by name; null for other tables. */
  readonly partitions: CatalogPartition[] | null
  /** A partitioned table's partitions that are partitioned themselves; null for none. */
  readonly subpartitioned?: { name: string; schema: string }[] | null
  readonly uniques: { name: string; columns: string[]; nullsNotDistinct?: boolean; index?: boolean }[]
  /** Row-level security is enabled on the table, or it has rewrite rules. */
  readonly copy_refused: boolean
  /** The role connected may not SELECT from it (an insert-only table: an audit log, an outbox). */
  readonly select_denied: boolean
}
