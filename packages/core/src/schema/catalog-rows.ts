/** The shape of one row of {@link CATALOG_QUERY}. */
export interface CatalogColumn {
  readonly name: string
  readonly typname: string
  readonly typtype: string
  readonly elemTypname: string | null
  readonly elemTyptype: string | null
  readonly typeOid: number
  readonly qualifiedType: string
  readonly qualifiedElemType: string | null
  readonly isArray: boolean
  readonly nullable: boolean
  readonly hasDefault: boolean
  /** '' none, 'a' always, 'd' by default. */
  readonly identity: string
  /** '' none, 's' stored. */
  readonly generated: string
  readonly typmod: number
  readonly sequence: string | null
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
}

export interface CatalogTable {
  readonly schema: string
  readonly name: string
  readonly columns: CatalogColumn[]
  readonly primary_key: string[] | null
  readonly foreign_keys: CatalogForeignKey[]
  readonly uniques: { name: string; columns: string[] }[]
}
